//! `$addFields` and its alias `$set`: computed fields set into each document (in place when the
//! field exists, appended otherwise; `$$REMOVE` removes it).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::projection::{add_fields, context, parse_add_fields, Tree};
use crate::aggregate::slots::SlotRole;
use crate::aggregate::util::{err, tname};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;

#[derive(Debug)]
pub(crate) struct AddFields {
    name: &'static str,
    tree: Tree,
}

pub(crate) fn parse(name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(40272, format!("{name} specification stage must be an object, got {}", tname(spec))));
    };
    let tree = parse_add_fields(d, &pcx.scope).map_err(context(name))?;
    Ok(Arc::new(AddFields { name, tree }))
}

impl Stage for AddFields {
    fn name(&self) -> &'static str {
        self.name
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        Box::new(input.map(move |d| add_fields(&self.tree, d?, cx.env)))
    }

    fn slot_role(&self) -> SlotRole<'_> {
        SlotRole::Sets(&self.tree)
    }

    fn keeps_metadata(&self) -> bool {
        true
    }
}
