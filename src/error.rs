//! The engine's one error type. Every failure a user can cause carries the server's `code`,
//! `codeName` and message wording, so the runtime can throw it exactly as mongosh would.

use std::fmt;

use bson::Document;

/// An error from the engine: a server error kind (which fixes `code` and `codeName`) and the
/// server's message text.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// Extra fields the server puts beside `errmsg` (e.g. `keyPattern`/`keyValue` of E11000).
    pub info: Option<Document>,
}

macro_rules! error_kinds {
    ($($name:ident = $code:literal),* $(,)?) => {
        /// Server error kinds, named as the server's `codeName`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $($name,)*
            /// A code the engine raises that has no name of its own (the server's numbered assertions,
            /// such as 15955 for `$group` without `_id`); `codeName` is `Location<code>`.
            Location(i32),
        }

        impl ErrorKind {
            /// The server's numeric `code`.
            pub fn code(self) -> i32 {
                match self {
                    $(ErrorKind::$name => $code,)*
                    ErrorKind::Location(c) => c,
                }
            }

            /// The server's `codeName`.
            pub fn code_name(self) -> String {
                match self {
                    $(ErrorKind::$name => stringify!($name).to_string(),)*
                    ErrorKind::Location(c) => format!("Location{c}"),
                }
            }

            /// The kind for a numeric code (named kinds first, else `Location(code)`).
            pub fn from_code(code: i32) -> ErrorKind {
                match code {
                    $($code => ErrorKind::$name,)*
                    c => ErrorKind::Location(c),
                }
            }
        }
    };
}

error_kinds! {
    InternalError = 1,
    BadValue = 2,
    NoSuchKey = 4,
    FailedToParse = 9,
    UnsupportedFormat = 12,
    TypeMismatch = 14,
    Overflow = 15,
    InvalidLength = 16,
    IllegalOperation = 20,
    EmptyArrayOperation = 21,
    InvalidBSON = 22,
    NamespaceNotFound = 26,
    IndexNotFound = 27,
    PathNotViable = 28,
    ConflictingUpdateOperators = 40,
    CursorNotFound = 43,
    NamespaceExists = 48,
    DollarPrefixedFieldName = 52,
    InvalidIdField = 53,
    NotSingleValueField = 54,
    InvalidDBRef = 55,
    EmptyFieldName = 56,
    DottedFieldName = 57,
    CommandNotFound = 59,
    ImmutableField = 66,
    CannotCreateIndex = 67,
    IndexAlreadyExists = 68,
    InvalidOptions = 72,
    InvalidNamespace = 73,
    IndexOptionsConflict = 85,
    IndexKeySpecsConflict = 86,
    InvalidPipelineOperator = 168,
    InvalidIndexSpecificationOption = 197,
    ConversionFailure = 241,
    MaxTimeMSExpired = 50,
    ExceededMemoryLimit = 146,
    BSONObjectTooLarge = 10334,
    DocumentValidationFailure = 121,
    NotImplemented = 238,
    QueryFeatureNotAllowed = 224,
    APIStrictError = 323,
    CannotBackfillArray = 108,
    ViewDepthLimitExceeded = 149,
    CommandNotSupportedOnView = 166,
    CannotIndexParallelArrays = 171,
    GraphContainsCycle = 267,
    MergeStageNoMatchingDocument = 13113,
    DuplicateKey = 11000,
    Unauthorized = 13,
    UnknownReplWriteConcern = 79,
    QueryPlanKilled = 175,
    MaxSubPipelineDepthExceeded = 232,
    UnsatisfiableWriteConcern = 100,
    WriteConflict = 112,
    TransactionTooOld = 225,
    NoSuchTransaction = 251,
    TransactionCommitted = 256,
    OperationNotSupportedInTransaction = 263,
    NoQueryExecutionPlans = 291,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), info: None }
    }

    /// A numbered server assertion (`Location<code>`, or the named kind when the code has a name).
    pub fn code(code: i32, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::from_code(code), message)
    }

    pub fn bad_value(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::BadValue, message)
    }

    pub fn failed_to_parse(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::FailedToParse, message)
    }

    pub fn type_mismatch(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::TypeMismatch, message)
    }

    /// The server's `addContext`: `"<context> :: caused by :: <message>"`, same code and info.
    pub fn add_context(mut self, context: impl std::fmt::Display) -> Error {
        self.message = format!("{context} :: caused by :: {}", self.message);
        self
    }

    pub fn with_info(mut self, info: Document) -> Error {
        self.info = Some(info);
        self
    }

    /// The server's numeric code.
    pub fn code_num(&self) -> i32 {
        self.kind.code()
    }

    /// The server's `codeName`.
    pub fn code_name(&self) -> String {
        self.kind.code_name()
    }

    /// The error as the server's reply fields: `{ ok: 0, errmsg, code, codeName, ...info }`.
    pub fn to_reply(&self) -> Document {
        let mut d = Document::new();
        d.insert("ok", 0.0);
        d.insert("errmsg", self.message.clone());
        d.insert("code", self.code_num());
        d.insert("codeName", self.code_name());
        if let Some(info) = &self.info {
            for (k, v) in info {
                d.insert(k.clone(), v.clone());
            }
        }
        d
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.code_name(), self.code_num(), self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;
