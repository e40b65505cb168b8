//! A field's value: a scalar, an option of one, or a fixed array of them.

use serde::ser::{self, Impossible, Serialize};

use super::column::{Column, Scalar};
use super::error::{unsupported, Error};

/// Serialises one field's value into its column. `Ok(true)` means null.
pub(super) struct ValueSerializer<'a> {
    pub(super) col: &'a mut Column,
}

/// The elements of an array field, pushed into the same column.
pub(super) struct Elements<'a> {
    col: &'a mut Column,
}

impl<'a> Elements<'a> {
    fn element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        if v.serialize(ValueSerializer { col: &mut *self.col })? {
            return unsupported(&format!("a null inside the array field {:?}", self.col.name));
        }
        Ok(())
    }
}

impl<'a> ser::SerializeSeq for Elements<'a> {
    type Ok = bool;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<bool, Error> {
        Ok(false)
    }
}

impl<'a> ser::SerializeTuple for Elements<'a> {
    type Ok = bool;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<bool, Error> {
        Ok(false)
    }
}

impl<'a> ValueSerializer<'a> {
    #[inline(always)]
    fn scalar(self, v: Scalar<'_>) -> Result<bool, Error> {
        self.col.push(v)?;
        Ok(false)
    }
}

/// The number serialisers: each widens its value into one column kind.
macro_rules! scalars {
    ($($f:ident($t:ty) => $kind:ident),* $(,)?) => {
        $(
            #[inline(always)]
            fn $f(self, v: $t) -> Result<bool, Error> {
                self.scalar(Scalar::$kind(v.into()))
            }
        )*
    };
}

impl<'a> ser::Serializer for ValueSerializer<'a> {
    type Ok = bool;
    type Error = Error;
    type SerializeSeq = Elements<'a>;
    type SerializeTuple = Elements<'a>;
    type SerializeTupleStruct = Impossible<bool, Error>;
    type SerializeTupleVariant = Impossible<bool, Error>;
    type SerializeMap = Impossible<bool, Error>;
    type SerializeStruct = Impossible<bool, Error>;
    type SerializeStructVariant = Impossible<bool, Error>;

    scalars!(
        serialize_bool(bool) => Bool,
        serialize_i8(i8) => I64,
        serialize_i16(i16) => I64,
        serialize_i32(i32) => I64,
        serialize_i64(i64) => I64,
        serialize_u8(u8) => U64,
        serialize_u16(u16) => U64,
        serialize_u32(u32) => U64,
        serialize_u64(u64) => U64,
        serialize_f32(f32) => F64,
        serialize_f64(f64) => F64,
    );
    fn serialize_char(self, v: char) -> Result<bool, Error> {
        self.scalar(Scalar::Str(v.encode_utf8(&mut [0; 4])))
    }
    #[inline(always)]
    fn serialize_str(self, v: &str) -> Result<bool, Error> {
        self.scalar(Scalar::Str(v))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<bool, Error> {
        // A plain enum serialises as its variant's name, as in the JSON.
        self.scalar(Scalar::Str(variant))
    }
    #[inline(always)]
    fn serialize_none(self) -> Result<bool, Error> {
        Ok(true)
    }
    fn serialize_unit(self) -> Result<bool, Error> {
        Ok(true)
    }
    #[inline(always)]
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<bool, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, v: &T) -> Result<bool, Error> {
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Elements<'a>, Error> {
        Ok(Elements { col: self.col })
    }
    fn serialize_tuple(self, _: usize) -> Result<Elements<'a>, Error> {
        Ok(Elements { col: self.col })
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<bool, Error> {
        unsupported("bytes")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<bool, Error> {
        unsupported("a unit struct")
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<bool, Error> {
        unsupported("an enum with data")
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
        unsupported("an enum with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        unsupported("a map")
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        unsupported("a nested struct")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        unsupported("an enum with data")
    }
}
