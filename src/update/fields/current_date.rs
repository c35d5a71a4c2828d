//! `$currentDate`: sets the field to the operation's time (`env.now`) as a date (`true`, or
//! `{ $type: "date" }`) or a timestamp (`{ $type: "timestamp" }`). Always a modification.

use bson::{Bson, Timestamp};

use crate::error::{Error, Result};
use crate::update::modifier::{Modifier, OpCtx, Outcome};
use crate::value::types::type_name;

#[derive(Debug, Clone)]
pub(crate) struct CurrentDate {
    pub timestamp: bool,
}

pub(crate) fn parse(_field: &str, v: &Bson) -> Result<CurrentDate> {
    match v {
        Bson::Boolean(_) => Ok(CurrentDate { timestamp: false }),
        Bson::Document(d) => {
            let mut found = None;
            for (k, x) in d {
                if k != "$type" {
                    return Err(Error::bad_value(format!("Unrecognized $currentDate option: {k}")));
                }
                match x {
                    Bson::String(s) if s == "date" => found = Some(false),
                    Bson::String(s) if s == "timestamp" => found = Some(true),
                    _ => {}
                }
            }
            match found {
                Some(timestamp) => Ok(CurrentDate { timestamp }),
                None => Err(Error::bad_value(
                    "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}",
                )),
            }
        }
        other => Err(Error::bad_value(format!(
            "{} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({{$type: 'timestamp/date'}}).",
            type_name(other)
        ))),
    }
}

impl CurrentDate {
    fn value(&self, c: &mut OpCtx) -> Bson {
        if self.timestamp {
            *c.timestamps += 1;
            let secs = c.env.now.timestamp_millis().div_euclid(1000);
            Bson::Timestamp(Timestamp { time: secs.clamp(0, u32::MAX as i64) as u32, increment: *c.timestamps })
        } else {
            Bson::DateTime(c.env.now)
        }
    }
}

impl Modifier for CurrentDate {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        *elem = self.value(c);
        Ok(Outcome::Updated)
    }

    fn new_value(&self, c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(Some(self.value(c)))
    }
}
