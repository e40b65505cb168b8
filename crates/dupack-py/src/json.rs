//! JSON text ⇄ Python objects without Python's `json` module.
//!
//! `import json` costs a `dupack run` about 7 ms of its start-up (it imports
//! `re` and `enum` and compiles its patterns), a tenth of the whole command
//! on a 10-flow dumbbell. The run path needs JSON in four places: the
//! scenario document the core hands over, its canonical text (hashed, and
//! given back to the core), the result, and the files `RunResult.save()`
//! writes. These two functions do that work here.
//!
//! [`json_dumps`] writes exactly what `json.dumps(obj, ensure_ascii=False,
//! allow_nan=False)` writes with the same `indent`, `sort_keys` and
//! separators: the scenario's hash is a digest of that text, so a single
//! changed character would change every stored result's identity. Numbers
//! are therefore written by Python's own `int.__repr__` and `float.__repr__`
//! (as `json` does), strings with `json`'s escapes. tests/test_json_text.py
//! compares the two on generated documents.
//!
//! [`json_loads`] builds the objects in document order (a dict keeps its
//! keys' order, the last of duplicate keys wins, as with `json.loads`);
//! numbers are parsed exactly (serde_json's `float_roundtrip`).

use pyo3::exceptions::{PyRecursionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyLong, PyString, PyTuple};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt::Write as _;

/// Deeper than any document dupack accepts (`MAX_DEPTH` = 64), shallower
/// than the Rust stack allows.
const MAX_NESTING: usize = 500;

/// `json.dumps(obj, ensure_ascii=False, allow_nan=False, indent=indent,
/// sort_keys=sort_keys, separators=…)`: `compact` is `(",", ":")`, else the
/// default separators (`", "` and `": "`, or `","` at line ends with an indent).
#[pyfunction]
#[pyo3(signature = (obj, indent=None, sort_keys=false, compact=false))]
pub fn json_dumps(obj: &Bound<'_, PyAny>, indent: Option<usize>, sort_keys: bool, compact: bool) -> PyResult<String> {
    let mut w = Writer { out: String::new(), indent, sort_keys, compact };
    w.value(obj, 0)?;
    Ok(w.out)
}

struct Writer {
    out: String,
    indent: Option<usize>,
    sort_keys: bool,
    compact: bool,
}

impl Writer {
    fn item_separator(&self) -> &'static str {
        if self.compact || self.indent.is_some() {
            ","
        } else {
            ", "
        }
    }

    fn key_separator(&self) -> &'static str {
        if self.compact {
            ":"
        } else {
            ": "
        }
    }

    /// The line break and indentation before an item at `level` (nothing
    /// without an indent).
    fn newline(&mut self, level: usize) {
        if let Some(n) = self.indent {
            self.out.push('\n');
            self.out.extend(std::iter::repeat_n(' ', n * level));
        }
    }

    fn value(&mut self, v: &Bound<'_, PyAny>, level: usize) -> PyResult<()> {
        if level > MAX_NESTING {
            return Err(PyRecursionError::new_err("maximum recursion depth exceeded while encoding a JSON object"));
        }
        if let Ok(s) = v.downcast::<PyString>() {
            self.string(&s.to_cow()?);
        } else if v.is_none() {
            self.out.push_str("null");
        } else if let Ok(b) = v.downcast::<PyBool>() {
            self.out.push_str(if b.is_true() { "true" } else { "false" });
        } else if v.is_instance_of::<PyLong>() {
            self.int(v)?;
        } else if let Ok(f) = v.downcast::<PyFloat>() {
            self.float(f)?;
        } else if let Ok(list) = v.downcast::<PyList>() {
            self.sequence(list.iter(), list.len(), level)?;
        } else if let Ok(tuple) = v.downcast::<PyTuple>() {
            self.sequence(tuple.iter(), tuple.len(), level)?;
        } else if let Ok(dict) = v.downcast::<PyDict>() {
            self.dict(dict, level)?;
        } else {
            let name = v.get_type().name()?;
            return Err(PyTypeError::new_err(format!("Object of type {name} is not JSON serializable")));
        }
        Ok(())
    }

    fn int(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        if v.is_exact_instance_of::<PyLong>() {
            if let Ok(i) = v.extract::<i64>() {
                let _ = write!(self.out, "{i}");
                return Ok(());
            }
        }
        // Big, or a subclass (an IntEnum): int.__repr__, as json does.
        let text = v.py().get_type_bound::<PyLong>().call_method1("__repr__", (v,))?;
        self.out.push_str(&text.downcast::<PyString>()?.to_cow()?);
        Ok(())
    }

    fn float(&mut self, f: &Bound<'_, PyFloat>) -> PyResult<()> {
        let x = f.value();
        if !x.is_finite() {
            return Err(PyValueError::new_err("Out of range float values are not JSON compliant"));
        }
        let text = f.py().get_type_bound::<PyFloat>().call_method1("__repr__", (f,))?;
        self.out.push_str(&text.downcast::<PyString>()?.to_cow()?);
        Ok(())
    }

    /// A JSON string: `"` and `\` escaped, the control characters as
    /// `json` writes them (`\n`, `\r`, `\t`, `\b`, `\f`, else `\u00XX`);
    /// everything else as it is (`ensure_ascii=False`).
    fn string(&mut self, s: &str) {
        self.out.push('"');
        let mut start = 0;
        for (i, c) in s.char_indices() {
            let esc = match c {
                '"' => "\\\"",
                '\\' => "\\\\",
                '\n' => "\\n",
                '\r' => "\\r",
                '\t' => "\\t",
                '\u{8}' => "\\b",
                '\u{c}' => "\\f",
                c if (c as u32) < 0x20 => "",
                _ => continue,
            };
            self.out.push_str(&s[start..i]);
            if esc.is_empty() {
                let _ = write!(self.out, "\\u{:04x}", c as u32);
            } else {
                self.out.push_str(esc);
            }
            start = i + c.len_utf8();
        }
        self.out.push_str(&s[start..]);
        self.out.push('"');
    }

    fn sequence<'py>(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        len: usize,
        level: usize,
    ) -> PyResult<()> {
        if len == 0 {
            self.out.push_str("[]");
            return Ok(());
        }
        self.out.push('[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.out.push_str(self.item_separator());
            }
            self.newline(level + 1);
            self.value(&item, level + 1)?;
        }
        self.newline(level);
        self.out.push(']');
        Ok(())
    }

    fn dict(&mut self, dict: &Bound<'_, PyDict>, level: usize) -> PyResult<()> {
        if dict.is_empty() {
            self.out.push_str("{}");
            return Ok(());
        }
        let mut items: Vec<(String, Bound<'_, PyAny>)> = Vec::with_capacity(dict.len());
        for (k, v) in dict.iter() {
            items.push((self.key(&k)?, v));
        }
        if self.sort_keys {
            // Code-point order, as Python compares str; UTF-8 bytes sort the same.
            items.sort_by(|a, b| a.0.cmp(&b.0));
        }
        self.out.push('{');
        for (i, (k, v)) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(self.item_separator());
            }
            self.newline(level + 1);
            self.string(k);
            self.out.push_str(self.key_separator());
            self.value(v, level + 1)?;
        }
        self.newline(level);
        self.out.push('}');
        Ok(())
    }

    /// A key as `json` turns it into a string (str as is; int, float, bool,
    /// None by their JSON text).
    fn key(&mut self, k: &Bound<'_, PyAny>) -> PyResult<String> {
        if let Ok(s) = k.downcast::<PyString>() {
            return Ok(s.to_cow()?.into_owned());
        }
        let scalar = k.is_none() || k.is_instance_of::<PyBool>() || k.is_instance_of::<PyLong>();
        if scalar || k.is_instance_of::<PyFloat>() {
            let mut w = Writer { out: String::new(), indent: None, sort_keys: false, compact: true };
            w.value(k, 0)?;
            return Ok(w.out);
        }
        let name = k.get_type().name()?;
        Err(PyTypeError::new_err(format!("keys must be str, int, float, bool or None, not {name}")))
    }
}

/// `json.loads(text)` for the JSON the core writes: ValueError on bad text.
#[pyfunction]
pub fn json_loads(py: Python<'_>, text: &str) -> PyResult<PyObject> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Build(py).deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    value.map_err(|e| PyValueError::new_err(format!("not valid JSON: {e}")))
}

/// A serde seed that builds the Python object of one JSON value.
#[derive(Clone, Copy)]
struct Build<'py>(Python<'py>);

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = PyObject;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<PyObject, D::Error> {
        d.deserialize_any(self)
    }
}

fn py_err<E: serde::de::Error>(e: PyErr) -> E {
    E::custom(e)
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = PyObject;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<PyObject, E> {
        Ok(self.0.None())
    }
    fn visit_bool<E>(self, v: bool) -> Result<PyObject, E> {
        Ok(v.into_py(self.0))
    }
    fn visit_i64<E>(self, v: i64) -> Result<PyObject, E> {
        Ok(v.into_py(self.0))
    }
    fn visit_u64<E>(self, v: u64) -> Result<PyObject, E> {
        Ok(v.into_py(self.0))
    }
    fn visit_f64<E>(self, v: f64) -> Result<PyObject, E> {
        Ok(v.into_py(self.0))
    }
    fn visit_str<E>(self, v: &str) -> Result<PyObject, E> {
        Ok(v.into_py(self.0))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PyObject, A::Error> {
        let list = PyList::empty_bound(self.0);
        while let Some(item) = seq.next_element_seed(self)? {
            list.append(item).map_err(py_err)?;
        }
        Ok(list.into_any().unbind())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PyObject, A::Error> {
        let dict = PyDict::new_bound(self.0);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let value = map.next_value_seed(self)?;
            dict.set_item(key.as_ref(), value).map_err(py_err)?;
        }
        Ok(dict.into_any().unbind())
    }
}
