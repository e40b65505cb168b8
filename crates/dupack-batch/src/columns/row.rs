//! A row: a struct whose fields become columns, in declaration order.

use serde::ser::{self, Impossible, Serialize};

use super::column::Column;
use super::error::{unsupported, Error};
use super::table::Table;
use super::value::ValueSerializer;

pub(super) struct RowSerializer<'a> {
    pub(super) table: &'a mut Table,
}

pub(super) struct RowFields<'a> {
    table: &'a mut Table,
    /// Where the next field is expected (fields come in declaration order).
    next: usize,
    /// Fields seen in this row.
    fields: usize,
}

impl<'a> ser::SerializeStruct for RowFields<'a> {
    type Ok = usize;
    type Error = Error;

    // Inlined into each struct's generated `serialize`: a call per field
    // would cost more than the field's work.
    #[inline(always)]
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let t = &mut *self.table;
        let i = match t.columns.get(self.next) {
            // Fields come in declaration order with the same &'static names:
            // comparing the pointers first spares comparing the text.
            Some(c) if std::ptr::eq(c.name, key) => self.next,
            _ => find_column(t, self.next, key),
        };
        self.next = i + 1;
        let col = &mut t.columns[i];
        if col.rows > t.rows {
            return Err(twice(key));
        }
        let null = value.serialize(ValueSerializer { col })?;
        self.fields += 1;
        col.end_row(null)
    }

    fn end(self) -> Result<usize, Error> {
        Ok(self.fields)
    }
}

/// The column of field `key`, made (at position `next`) if it is new.
#[cold]
#[inline(never)]
fn find_column(t: &mut Table, next: usize, key: &'static str) -> usize {
    match t.columns.iter().position(|c| c.name == key) {
        Some(i) => i,
        None => {
            t.columns.insert(next, Column::new(key, t.rows));
            next
        }
    }
}

#[cold]
#[inline(never)]
fn twice(key: &str) -> Error {
    Error::new(format!("field {key:?} appears twice in one row"))
}

macro_rules! no_row {
    ($($f:ident($($t:ty),*)),* $(,)?) => {
        $(fn $f(self $(, _: $t)*) -> Result<Self::Ok, Error> { unsupported("a value that is not a struct") })*
    };
}

impl<'a> ser::Serializer for RowSerializer<'a> {
    /// How many fields the row had.
    type Ok = usize;
    type Error = Error;
    type SerializeSeq = Impossible<usize, Error>;
    type SerializeTuple = Impossible<usize, Error>;
    type SerializeTupleStruct = Impossible<usize, Error>;
    type SerializeTupleVariant = Impossible<usize, Error>;
    type SerializeMap = Impossible<usize, Error>;
    type SerializeStruct = RowFields<'a>;
    type SerializeStructVariant = Impossible<usize, Error>;

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<RowFields<'a>, Error> {
        Ok(RowFields { table: self.table, next: 0, fields: 0 })
    }

    no_row!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<usize, Error> {
        unsupported("an optional row")
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> Result<usize, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<usize, Error> {
        unsupported("an enum")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        unsupported("a list")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        unsupported("a tuple")
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        unsupported("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        unsupported("an enum")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        unsupported("a map")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported("an enum")
    }
}
