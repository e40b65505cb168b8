//! The columns of the result tables, declared once.
//!
//! [`result_table!`] turns one declaration per table into the result struct
//! (what `collect` fills and serde writes) and its `COLUMNS`: for each
//! column its name, pandas dtype, unit and meaning, which the Python front
//! builds its DataFrames and Parquet schemas from and docs/results.md is
//! checked against. A field's type, unit and doc comment therefore cannot
//! disagree with what the tables say about it.

/// One column of a result table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// The column's name: the field's, or for an array field one name per element.
    pub name: &'static str,
    /// The struct field, and so the JSON key, the column comes from.
    pub field: &'static str,
    /// The pandas dtype: `uint64`, `UInt64` (nullable), `float64` (NaN for
    /// null) or `str`. Fixed, so that a column all null in one run keeps
    /// the Parquet type it has in another.
    pub dtype: &'static str,
    /// As docs/results.md writes it; `–` for names and labels.
    pub unit: &'static str,
    /// The field's doc comment, on one line.
    pub doc: &'static str,
}

impl Column {
    /// `doc` may be a doc comment's lines run together, each behind the
    /// space that follows `///`; the leading one is dropped.
    pub const fn new(
        name: &'static str,
        field: &'static str,
        dtype: &'static str,
        unit: &'static str,
        doc: &'static str,
    ) -> Column {
        Column { name, field, dtype, unit, doc: doc.trim_ascii() }
    }
}

/// The dtype a field's type becomes, and how its value reaches a
/// [`RowVisitor`]. Only these types can be result columns: a field of
/// another type does not compile, rather than reaching Python as a column
/// whose dtype nobody chose.
pub trait ColumnType {
    const DTYPE: &'static str;
    fn visit<V: RowVisitor>(&self, v: &mut V);
}

impl ColumnType for u64 {
    const DTYPE: &'static str = "uint64";
    #[inline(always)]
    fn visit<V: RowVisitor>(&self, v: &mut V) {
        v.u64(*self)
    }
}

impl ColumnType for Option<u64> {
    const DTYPE: &'static str = "UInt64";
    #[inline(always)]
    fn visit<V: RowVisitor>(&self, v: &mut V) {
        v.opt_u64(*self)
    }
}

impl ColumnType for f64 {
    const DTYPE: &'static str = "float64";
    #[inline(always)]
    fn visit<V: RowVisitor>(&self, v: &mut V) {
        v.f64(*self)
    }
}

// A null float is NaN in pandas, so an optional float needs no other dtype.
impl ColumnType for Option<f64> {
    const DTYPE: &'static str = "float64";
    #[inline(always)]
    fn visit<V: RowVisitor>(&self, v: &mut V) {
        v.opt_f64(*self)
    }
}

impl ColumnType for String {
    const DTYPE: &'static str = "str";
    #[inline(always)]
    fn visit<V: RowVisitor>(&self, v: &mut V) {
        v.str(self)
    }
}

/// An array field is one column per element (names given in the declaration).
impl<const N: usize> ColumnType for [u64; N] {
    const DTYPE: &'static str = "uint64";
    #[inline(always)]
    fn visit<V: RowVisitor>(&self, v: &mut V) {
        v.u64s(self)
    }
}

/// What takes a result row's values one field after another, in the
/// order of the fields: the same values serde gives, without its
/// per-field calls (a sweep turns every run's rows into columns this way,
/// `dupack_batch::columns`).
pub trait RowVisitor {
    fn u64(&mut self, v: u64);
    fn opt_u64(&mut self, v: Option<u64>);
    fn f64(&mut self, v: f64);
    fn opt_f64(&mut self, v: Option<f64>);
    fn str(&mut self, v: &str);
    /// An array field's elements: one field, several values.
    fn u64s(&mut self, v: &[u64]);
}

/// A struct declared with [`result_table!`]: its fields, visited in order.
pub trait Row {
    /// The number of fields (an array field is one).
    const FIELDS: usize;
    fn visit<V: RowVisitor>(&self, v: &mut V);
}

/// Defines a result struct and its `COLUMNS` from one list of fields.
///
/// ```text
/// result_table! {
///     #[derive(Clone, Debug, Default, PartialEq, Serialize)]
///     pub struct FlowResult {
///         /// Bytes delivered in order to the receiving application.
///         pub bytes_delivered: u64 => "bytes",
///         /// N_dup(i): for each expiry, how many dupacks had arrived.
///         pub ndup_at_timeout: [u64; 4] => "expiries" [
///             ndup_0: "N_dup(0): …",
///             ndup_1: "N_dup(1): …",
///             …
///         ],
///     }
/// }
/// ```
///
/// Each field is its doc comment (required: it is the column's meaning;
/// one paragraph, whose lines become one), name, type (see [`ColumnType`])
/// and unit; an array field adds the name and meaning of each element's
/// column. The struct gets the attributes written above it, and its fields
/// their doc comments, in the order given. Fields take no other attribute:
/// one that renamed or skipped a field in serde would part the JSON from
/// `COLUMNS`.
macro_rules! result_table {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                pub $field:ident: $ty:ty => $unit:literal $([$($elem:ident: $elem_doc:literal),+ $(,)?])?
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        pub struct $name {
            $(
                $(#[doc = $doc])+
                pub $field: $ty,
            )*
        }

        impl $crate::metrics::columns::Row for $name {
            const FIELDS: usize = [$(stringify!($field)),*].len();
            #[inline]
            fn visit<V: $crate::metrics::columns::RowVisitor>(&self, v: &mut V) {
                $( $crate::metrics::columns::ColumnType::visit(&self.$field, v); )*
            }
        }

        impl $name {
            /// The table's columns, in the order of the fields.
            pub const COLUMNS: &'static [$crate::metrics::columns::Column] = result_table!(
                @columns []
                $( ($field, $ty, $unit, concat!($($doc),+)) [$($($elem: $elem_doc),+)?] )*
            );
        }
    };

    // The columns, one field at a time (an array field gives several, which
    // a single expression per field could not add to the list).
    (@columns [$($out:expr,)*]) => { &[$($out,)*] };
    (@columns [$($out:expr,)*] ($field:ident, $ty:ty, $unit:literal, $doc:expr) [] $($rest:tt)*) => {
        result_table!(
            @columns [
                $($out,)*
                $crate::metrics::columns::Column::new(
                    stringify!($field),
                    stringify!($field),
                    <$ty as $crate::metrics::columns::ColumnType>::DTYPE,
                    $unit,
                    $doc,
                ),
            ]
            $($rest)*
        )
    };
    (
        @columns [$($out:expr,)*]
        ($field:ident, $ty:ty, $unit:literal, $doc:expr) [$($elem:ident: $elem_doc:literal),+]
        $($rest:tt)*
    ) => {
        result_table!(
            @columns [
                $($out,)*
                $(
                    $crate::metrics::columns::Column::new(
                        stringify!($elem),
                        stringify!($field),
                        <$ty as $crate::metrics::columns::ColumnType>::DTYPE,
                        $unit,
                        $elem_doc,
                    ),
                )+
            ]
            $($rest)*
        )
    };
}

pub(crate) use result_table;
