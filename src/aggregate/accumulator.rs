//! `$group` accumulators: the `Accumulator` trait, the parse of one `field: { $op: <arg> }`
//! statement, and the registry of operator names (drives "unknown group operator").

use std::fmt;
use std::sync::Arc;

use bson::{Bson, Document};

use super::accumulators as acc;
use super::util::err;
use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Expr, VarScope};
use crate::value::display;

/// A parsed accumulator (one per output field of `$group`, `$bucket`, ...).
pub(crate) trait Accumulator: fmt::Debug + Send + Sync {
    /// A fresh state for a new group; `id` is the group's key (for `n` expressions that read it).
    fn start<'s>(&'s self, id: &Bson, env: &Env) -> Result<Box<dyn State + 's>>;

    /// What the accumulator reads of each input document: an input that can give it the value
    /// of its argument without a decoded document (the `$group` that reads stored bytes) hands
    /// that value to [`State::add_value`] instead of the document to [`State::add`].
    fn reads(&self) -> Reads<'_> {
        Reads::Document
    }
}

/// What an accumulator reads of each input document (see [`Accumulator::reads`]).
pub(crate) enum Reads<'a> {
    /// Nothing (`$count`).
    Nothing,
    /// The value of one argument expression, and nothing else.
    Arg(&'a Expr),
    /// The document in other ways (`$top`: an output and sort keys).
    Document,
}

/// The running state of one accumulator in one group.
pub(crate) trait State {
    /// Adds one input document.
    fn add(&mut self, doc: &Document, env: &Env) -> Result<()>;
    /// Adds one input document given as the value of the accumulator's argument (`None` for
    /// missing), which [`State::add`] would have evaluated: for the accumulators whose
    /// [`Accumulator::reads`] is not [`Reads::Document`].
    fn add_value(&mut self, _v: Option<&Bson>) -> Result<()> {
        Err(Error::new(ErrorKind::InternalError, "this accumulator reads whole documents"))
    }
    /// The accumulated value.
    fn finish(self: Box<Self>) -> Result<Bson>;
}

/// Parses an accumulator operator's argument.
pub(crate) type ParseFn = fn(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>>;

/// Every `$group` operator the engine knows.
pub(crate) static ACCUMULATORS: &[(&str, ParseFn)] = &[
    ("$addToSet", acc::add_to_set::parse),
    ("$avg", acc::avg::parse),
    ("$bottom", acc::bottom::parse),
    ("$bottomN", acc::bottom_n::parse),
    ("$count", acc::count::parse),
    ("$first", acc::first::parse),
    ("$firstN", acc::first_n::parse),
    ("$last", acc::last::parse),
    ("$lastN", acc::last_n::parse),
    ("$max", acc::max::parse),
    ("$maxN", acc::max_n::parse),
    ("$mergeObjects", acc::merge_objects::parse),
    ("$min", acc::min::parse),
    ("$minN", acc::min_n::parse),
    ("$push", acc::push::parse),
    ("$stdDevPop", acc::std_dev_pop::parse),
    ("$stdDevSamp", acc::std_dev_samp::parse),
    ("$sum", acc::sum::parse),
    ("$top", acc::top::parse),
    ("$topN", acc::top_n::parse),
];

/// Accumulators of MongoDB 8 the engine does not implement.
pub(crate) static UNSUPPORTED_ACCUMULATORS: &[&str] = &["$accumulator", "$median", "$percentile"];

/// One `field: { $op: <arg> }` of `$group` / `$bucket` output.
#[derive(Debug, Clone)]
pub(crate) struct Statement {
    pub field: String,
    pub acc: Arc<dyn Accumulator>,
}

/// Parses one accumulation statement with the server's checks (40234, 40235, 40236, 40238,
/// 40237, 15952).
pub(crate) fn parse_statement(field: &str, spec: &Bson, scope: &VarScope) -> Result<Statement> {
    let obj = match spec {
        Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => d,
        _ => return Err(err(40234, format!("The field '{field}' must be an accumulator object"))),
    };
    if field.contains('.') {
        return Err(err(40235, format!("The field name '{field}' cannot contain '.'")));
    }
    if field.starts_with('$') {
        return Err(err(40236, format!("The field name '{field}' cannot be an operator name")));
    }
    if obj.len() != 1 {
        return Err(err(40238, format!("The field '{field}' must specify one accumulator")));
    }
    let Some((name, arg)) = obj.iter().next() else {
        return Err(err(40238, format!("The field '{field}' must specify one accumulator")));
    };
    if matches!(arg, Bson::Array(_)) {
        return Err(err(40237, format!("The {name} accumulator is a unary operator")));
    }
    let Some((n, parse)) = ACCUMULATORS.iter().find(|(n, _)| n == name) else {
        if UNSUPPORTED_ACCUMULATORS.contains(&name.as_str()) {
            return Err(Error::new(ErrorKind::NotImplemented, format!("{name} is not supported by this engine")));
        }
        return Err(err(15952, format!("unknown group operator '{name}'")));
    };
    Ok(Statement { field: field.to_string(), acc: parse(n, arg, scope)? })
}

/// A group's running states, one per statement.
pub(crate) struct Row<'s> {
    pub states: Vec<Box<dyn State + 's>>,
}

impl<'s> Row<'s> {
    pub fn start(stmts: &'s [Statement], id: &Bson, env: &Env) -> Result<Row<'s>> {
        let states = stmts.iter().map(|s| s.acc.start(id, env)).collect::<Result<Vec<_>>>()?;
        Ok(Row { states })
    }

    pub fn add(&mut self, doc: &Document, env: &Env) -> Result<()> {
        for s in &mut self.states {
            s.add(doc, env)?;
        }
        Ok(())
    }

    /// Adds one input document given as the values of each statement's argument (see
    /// [`State::add_value`]).
    pub fn add_values<'v>(&mut self, values: impl IntoIterator<Item = Option<&'v Bson>>) -> Result<()> {
        for (s, v) in self.states.iter_mut().zip(values) {
            s.add_value(v)?;
        }
        Ok(())
    }

    /// Appends each statement's value to `out`.
    pub fn finish_into(self, stmts: &[Statement], out: &mut Document) -> Result<()> {
        for (st, s) in stmts.iter().zip(self.states) {
            out.insert(st.field.clone(), s.finish()?);
        }
        Ok(())
    }
}

/// An expression argument evaluated per document, with a fast path for plain field paths
/// (`"$qty"`): those are read in place, without copying the value.
#[derive(Debug, Clone)]
pub(crate) struct Arg {
    expr: Expr,
    path: Option<Vec<String>>,
}

enum Fast<'d> {
    Found(Option<&'d Bson>),
    /// An array in the middle of the path: the expression's mapping semantics apply.
    Slow,
}

fn fast_lookup<'d>(doc: &'d Document, path: &[String]) -> Fast<'d> {
    let Some((first, rest)) = path.split_first() else { return Fast::Slow };
    let mut cur = match crate::value::path::field(doc, first) {
        Some(v) => v,
        None => return Fast::Found(None),
    };
    for p in rest {
        cur = match cur {
            Bson::Document(d) => match crate::value::path::field(d, p) {
                Some(v) => v,
                None => return Fast::Found(None),
            },
            Bson::Array(_) => return Fast::Slow,
            _ => return Fast::Found(None),
        };
    }
    Fast::Found(Some(cur))
}

impl Arg {
    pub fn parse(spec: &Bson, scope: &VarScope) -> Result<Arg> {
        Ok(Arg::from_expr(Expr::parse(spec, scope)?))
    }

    pub fn from_expr(expr: Expr) -> Arg {
        let path = expr.as_field_path().map(|p| p.split('.').map(String::from).collect());
        Arg { expr, path }
    }

    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Calls `f` with the argument's value in `doc` (`None` for missing).
    pub fn with<R>(&self, doc: &Document, env: &Env, f: impl FnOnce(Option<&Bson>) -> Result<R>) -> Result<R> {
        if let Some(p) = &self.path {
            if let Fast::Found(v) = fast_lookup(doc, p) {
                return f(v);
            }
        }
        let v = self.expr.evaluate(doc, env)?;
        f(v.as_ref())
    }
}

/// An accumulator with one argument expression evaluated per document and a per-group fold
/// (`$sum`, `$avg`, `$push`, ...).
pub(crate) struct Unary<F> {
    pub name: &'static str,
    pub arg: Arg,
    pub _fold: std::marker::PhantomData<fn() -> F>,
}

impl<F> fmt::Debug for Unary<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", self.name, self.arg)
    }
}

/// The per-group part of a unary accumulator.
pub(crate) trait Fold: Default + 'static {
    /// Adds one value (`None` for missing); folds that keep values copy them.
    fn add(&mut self, v: Option<&Bson>) -> Result<()>;
    fn finish(self) -> Result<Bson>;
}

impl<F: Fold> Unary<F> {
    pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
        Ok(Arc::new(Unary::<F> { name, arg: Arg::parse(arg, scope)?, _fold: std::marker::PhantomData }))
    }
}

struct UnaryState<'s, F> {
    arg: &'s Arg,
    fold: F,
}

impl<F: Fold> Accumulator for Unary<F> {
    fn start<'s>(&'s self, _id: &Bson, _env: &Env) -> Result<Box<dyn State + 's>> {
        Ok(Box::new(UnaryState { arg: &self.arg, fold: F::default() }))
    }

    fn reads(&self) -> Reads<'_> {
        Reads::Arg(&self.arg.expr)
    }
}

impl<F: Fold> State for UnaryState<'_, F> {
    fn add(&mut self, doc: &Document, env: &Env) -> Result<()> {
        let fold = &mut self.fold;
        self.arg.with(doc, env, |v| fold.add(v))
    }

    fn add_value(&mut self, v: Option<&Bson>) -> Result<()> {
        self.fold.add(v)
    }

    fn finish(self: Box<Self>) -> Result<Bson> {
        self.fold.finish()
    }
}

/// Evaluates and checks an accumulator's `n` (`$firstN`, `$topN`, ...): a positive integral
/// number (5787902, 5787903, 5787908). As the server's group processor does, `n` is evaluated
/// against the group key when it is a document (`_id: {gameId: "$gameId"}` makes `"$gameId"`
/// readable), and against an empty document otherwise.
pub(crate) fn eval_n(n: &Expr, id: &Bson, env: &Env) -> Result<usize> {
    let empty = Document::new();
    let root = match id {
        Bson::Document(d) => d,
        _ => &empty,
    };
    let v = n.evaluate(root, env)?;
    let i = crate::expr::check_n(v.as_ref())?;
    Ok(usize::try_from(i).unwrap_or(usize::MAX))
}

/// The error for a spec that must be an object (`$firstN: 1`).
pub(crate) fn spec_not_object(code: i32, name: &str, arg: &Bson) -> Error {
    err(code, format!("specification must be an object; found {name}: {}", display::value(arg)))
}
