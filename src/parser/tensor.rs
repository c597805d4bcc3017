//! Tensor constants (`float[2] w = {1, 2}`), their values, external data
//! references, and [ext] sparse tensor constants.
//!
//! Values are stored exactly where the reference parser stores them (see
//! [`Storage`]). A list that starts with a number arrives as one
//! [`Token::Numbers`]; its items are checked and converted in a single
//! pass, with no allocation per element.

use std::ops::Range;

use chumsky::prelude::*;

use super::annotation::{self, Entry};
use super::common::{integer, quotable_id, string_literal, text_literal, IntegerName};
use super::{emit_diagnostic, CustomError, Fail, Parsed, Problem, Tokens};
use crate::lexer::{list_items, number_in_item, skip_blank, BadItem, Token};
use crate::numbers::FromPlain;
use crate::proto::tensor_proto::{DataLocation, DataType};
use crate::proto::tensor_shape_proto::dimension;
use crate::proto::type_proto::Value;
use crate::proto::{SparseTensorProto, StringStringEntryProto, TensorProto, TypeProto};

/// The values written after a tensor type and name.
#[derive(Debug, Clone)]
pub(crate) enum Data<'s> {
    /// No values at all (`float[2] w =`).
    Absent,
    /// A list of numbers: its text between the braces, and the text's span.
    Numbers(&'s str, SimpleSpan),
    /// Any other `{...}` list, one literal per element.
    Literals(Vec<(Literal<'s>, SimpleSpan)>),
    /// `["location": "file", ...]`: the data lives in another file.
    External(Vec<StringStringEntryProto>),
}

/// One element of a `{...}` list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal<'s> {
    /// An integer literal, as written.
    Int(&'s str),
    /// A float literal (or `inf`/`nan`), as written.
    Float(&'s str),
    /// A string literal, unescaped.
    Bytes(Vec<u8>),
}

/// Where the reference parser stores the literals of each element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Storage {
    /// Integers (and bit patterns) in `int32_data`.
    Int32,
    /// Narrow float types: integers are bit patterns, [ext] decimals are
    /// rounded to the type. Both land in `int32_data`.
    NarrowFloat,
    /// `int64_data`.
    Int64,
    /// `uint64_data`.
    Uint64,
    /// `float_data` (complex64 takes two per element).
    Float,
    /// `double_data` (complex128 takes two per element).
    Double,
    /// `string_data`.
    Bytes,
}

fn storage(data_type: i32) -> Option<Storage> {
    use DataType as D;
    Some(match DataType::try_from(data_type).ok()? {
        D::Int2
        | D::Int4
        | D::Int8
        | D::Int16
        | D::Int32
        | D::Uint2
        | D::Uint4
        | D::Uint8
        | D::Uint16
        | D::Bool => Storage::Int32,
        D::Float16
        | D::Bfloat16
        | D::Float8e4m3fn
        | D::Float8e4m3fnuz
        | D::Float8e5m2
        | D::Float8e5m2fnuz
        | D::Float8e8m0
        | D::Float4e2m1
        | D::Float6e2m3
        | D::Float6e3m2 => Storage::NarrowFloat,
        D::Int64 => Storage::Int64,
        D::Uint32 | D::Uint64 => Storage::Uint64,
        D::Float | D::Complex64 => Storage::Float,
        D::Double | D::Complex128 => Storage::Double,
        D::String => Storage::Bytes,
        D::Undefined => return None,
    })
}

/// A literal inside `{...}` when the list is not all numbers.
fn literal<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, Literal<'s>> {
    select! {
        Token::Int(text) => Literal::Int(text),
        Token::Float(text) => Literal::Float(text),
        Token::Ident(text) if is_special_float(text) => Literal::Float(text),
    }
    .or(string_literal().map(Literal::Bytes))
    .labelled("a value")
    .boxed()
}

/// `inf`, `infinity` or `nan`, in any case.
pub(crate) fn is_special_float(word: &str) -> bool {
    ["inf", "infinity", "nan"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
}

/// `["key": "value", ...]`, at least one pair.
pub(crate) fn string_pairs<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, Vec<StringStringEntryProto>> {
    text_literal()
        .then_ignore(just(Token::Colon))
        .then(text_literal())
        .map(|(key, value)| StringStringEntryProto {
            key: Some(key),
            value: Some(value),
        })
        .separated_by(just(Token::Comma))
        .at_least(1)
        .collect()
        .delimited_by(just(Token::LBracket), just(Token::RBracket))
        .boxed()
}

/// The values of a tensor constant: `{...}` or `[...]` (external data).
pub(crate) fn data<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>() -> Parsed<'t, I, E, Data<'s>> {
    let numbers = select! { Token::Numbers(text) = e => {
        let span: SimpleSpan = e.span();
        Data::Numbers(text, SimpleSpan::from(span.start + 1..span.end - 1))
    } };
    let literals = literal()
        .map_with(|lit, e| (lit, e.span()))
        .separated_by(just(Token::Comma))
        .collect()
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .map(Data::Literals);
    choice((numbers, literals, string_pairs().map(Data::External)))
        .labelled("tensor values")
        .boxed()
}

/// What may follow the type of a tensor constant in an attribute value:
/// a name, `=`, values, or several of these, in that order. Needs at least
/// one of them (a type alone is a `type_proto` value).
pub(crate) fn tensor_tail<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
) -> Parsed<'t, I, E, (Option<String>, Data<'s>)> {
    let eq = just(Token::Eq).or_not().ignored();
    choice((
        quotable_id()
            .then_ignore(eq)
            .then(data().or_not())
            .map(|(name, d)| (Some(name), d)),
        just(Token::Eq)
            .ignore_then(data().or_not())
            .map(|d| (None, d)),
        data().map(|d| (None, Some(d))),
    ))
    .map(|(name, data)| (name, data.unwrap_or(Data::Absent)))
    .boxed()
}

/// A tensor constant on its own: `annotation? type name? '='? values?`.
pub(crate) fn tensor_constant<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    ty: Parsed<'t, I, E, TypeProto>,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, TensorProto> {
    let name = quotable_id().or_not();
    annotation
        .or_not()
        .then(ty.map_with(|t, e| (t, e.span())))
        .then(name)
        .then_ignore(just(Token::Eq).or_not())
        .then(data().or_not())
        .validate(|(((entries, ty), name), data), _, emitter| {
            let data = data.unwrap_or(Data::Absent);
            let mut tensor = build_tensor(ty, name, data, &mut |e| emitter.emit(e));
            annotate_tensor(&mut tensor, entries, emitter);
            tensor
        })
        .boxed()
}

/// Applies the annotation written before a tensor constant, if any.
pub(crate) fn annotate_tensor<E: CustomError>(
    tensor: &mut TensorProto,
    entries: Option<Vec<Entry>>,
    emitter: &mut chumsky::input::Emitter<E>,
) {
    if let Some(entries) = entries {
        if let Err(d) = annotation::apply_tensor(tensor, entries) {
            emit_diagnostic(emitter, d);
        }
    }
}

/// Builds a tensor from its type, name and values, giving problems
/// (symbolic dimensions, values of the wrong kind, overflow) to `report`.
pub(crate) fn build_tensor<'s, E: CustomError>(
    (ty, type_span): (TypeProto, SimpleSpan),
    name: Option<String>,
    data: Data<'s>,
    report: &mut impl FnMut(E),
) -> TensorProto {
    let mut tensor = TensorProto {
        name,
        ..TensorProto::default()
    };
    let Some(Value::TensorType(tensor_type)) = ty.value else {
        report(E::custom(
            type_span,
            "a tensor constant needs a tensor type such as `float[2]`",
        ));
        return tensor;
    };
    tensor.data_type = tensor_type.elem_type;
    let Some(shape) = tensor_type.shape else {
        report(E::custom(
            type_span,
            "a tensor constant needs its dimensions: write `float[2,3]`, or `float` for a scalar",
        ));
        return tensor;
    };
    for dim in &shape.dim {
        match &dim.value {
            Some(dimension::Value::DimValue(n)) => tensor.dims.push(*n),
            _ => {
                report(E::custom(
                    type_span,
                    "the dimensions of a tensor constant must be numbers",
                ));
                return tensor;
            }
        }
    }
    let data_type = tensor.data_type.unwrap_or_default();
    let result = match data {
        Data::Absent => Ok(()),
        Data::External(entries) => {
            tensor.data_location = Some(DataLocation::External as i32);
            tensor.external_data = entries;
            Ok(())
        }
        Data::Numbers(text, span) => match storage(data_type) {
            Some(Storage::Float) => number_list(&mut tensor.float_data, text, span.start),
            Some(Storage::Double) => number_list(&mut tensor.double_data, text, span.start),
            Some(Storage::Int32) => number_list(&mut tensor.int32_data, text, span.start),
            Some(Storage::Int64) => number_list(&mut tensor.int64_data, text, span.start),
            Some(Storage::Uint64) => number_list(&mut tensor.uint64_data, text, span.start),
            _ => store_values(
                &mut tensor,
                data_type,
                number_items(text, span.start),
                count_marks(text).items(),
                type_span,
            ),
        },
        Data::Literals(items) => {
            let count = items.len();
            store_values(
                &mut tensor,
                data_type,
                items.into_iter().map(Ok),
                count,
                type_span,
            )
        }
    };
    if let Err(error) = result {
        report(error);
    }
    tensor
}

/// An element type whose number lists [`number_list`] reads: plain items
/// by [`FromPlain`], any other item by [`ListValue::item`].
trait ListValue: FromPlain + Default + Copy + Send {
    /// The value of the item at `span` of `text` (a [`ListItem`]'s, at
    /// `offset` in the source) that [`FromPlain`] did not read, or what is
    /// wrong with it.
    ///
    /// [`ListItem`]: crate::lexer::ListItem
    fn item<E: CustomError>(text: &str, span: Range<usize>, offset: usize) -> Result<Self, E>;
}

/// [`ListValue`] for each type, its general path named.
macro_rules! list_value {
    ($item:ident: $($ty:ty),*) => {$(
        impl ListValue for $ty {
            fn item<E: CustomError>(text: &str, span: Range<usize>, offset: usize) -> Result<Self, E> {
                $item(text, span, offset)
            }
        }
    )*};
}

list_value!(float_item: f32, f64);
list_value!(integer_item: i32, i64, u64);

/// The fast path for the bulk of big models, the values of every element
/// type stored as `float`, `double`, `int32`, `int64` or `uint64`: each
/// item of a [`Token::Numbers`] text is checked and read straight into
/// `out` (floats correctly rounded) in one pass; a long list without
/// comments in two halves, on two threads (see [`crate::parallel`]), each
/// into its own part of `out`. `offset` is the text's position in the
/// source.
fn number_list<T: ListValue, E: CustomError>(
    out: &mut Vec<T>,
    text: &str,
    offset: usize,
) -> Result<(), E> {
    if let Some(comma) = crate::parallel::split_point(text.as_bytes()) {
        let (front, back) = (&text[..comma], &text[comma + 1..]);
        let (front_marks, back_marks) =
            crate::parallel::join(|| count_marks(front), || count_marks(back));
        // Without comments, every comma separates two items (so the split
        // is between two of them), and each half fills its slots exactly.
        if front_marks.comments + back_marks.comments == 0 {
            *out = vec![T::default(); front_marks.items() + back_marks.items()];
            let (front_slots, back_slots) = out.split_at_mut(front_marks.items());
            let (front_read, back_read) = crate::parallel::join(
                || number_run(front_slots, front, offset),
                || number_run::<T, Problem>(back_slots, back, offset + comma + 1),
            );
            front_read?;
            return back_read.map(drop).map_err(|(message, span)| {
                E::custom(span.unwrap_or(SimpleSpan::from(offset..offset)), message)
            });
        }
    }
    // Zeroed memory comes fresh from the system, untouched until filled.
    *out = vec![T::default(); count_marks(text).items()];
    let count = number_run(out, text, offset)?;
    out.truncate(count);
    Ok(())
}

/// Reads the numbers of `text`, at `offset` in the source, into `slots`,
/// and returns how many there were; `slots` has room for
/// [`Marks::items`] of them.
fn number_run<T: ListValue, E: CustomError>(
    slots: &mut [T],
    text: &str,
    offset: usize,
) -> Result<usize, E> {
    let mut count = 0;
    for item in list_items(text.as_bytes()) {
        let Some(slot) = slots.get_mut(count) else {
            let at = SimpleSpan::from(offset + item.span.start..offset + item.span.end);
            return Err(E::custom(at, "more numbers than the commas separate"));
        };
        *slot = match item.plain.and_then(|number| T::from_plain(&number)) {
            Some(value) => value,
            None => T::item(text, item.span, offset)?,
        };
        count += 1;
    }
    Ok(count)
}

/// The value of an item of a number list that is not a plain decimal:
/// correctly rounded by `fast_float2`, read as it scans the number, when
/// the item is a finite number in decimal digits; otherwise (`inf`, `nan`,
/// a literal too large for `T`, a mistake) by `str::parse` after the
/// lexer's scan, which also tells what is wrong with it.
fn float_item<T, E>(text: &str, span: Range<usize>, offset: usize) -> Result<T, E>
where
    T: fast_float2::FastFloat + std::str::FromStr + IsInfinite,
    E: CustomError,
{
    let bytes = text.as_bytes();
    let start = skip_blank(bytes, span.start);
    // Only `-?[0-9]`: `fast_float2` also reads `+1` and `.5`, which the
    // syntax has not.
    let digit_at = start + usize::from(bytes.get(start) == Some(&b'-'));
    if bytes.get(digit_at).is_some_and(u8::is_ascii_digit) {
        if let Ok((value, len)) = fast_float2::parse_partial::<T, _>(&bytes[start..span.end]) {
            // The item is this number and blanks: nothing glued to it.
            if !value.is_infinite() && skip_blank(bytes, start + len) == span.end {
                return Ok(value);
            }
        }
    }
    let number = number_in_item(bytes, span).map_err(|bad| item_error(bad, offset))?;
    let literal = &text[number.clone()];
    match fast_float2::parse::<T, _>(literal) {
        Ok(value) if !value.is_infinite() => Ok(value),
        // `inf`, a literal too large for `T`, or one `fast_float2` does not
        // read: the slow path tells.
        _ => parse_float(
            literal,
            SimpleSpan::from(offset + number.start..offset + number.end),
        ),
    }
}

/// The error for an item of a number list (at `offset` in the source) that
/// is not one number.
fn item_error<E: CustomError>(bad: BadItem, offset: usize) -> E {
    let (at, message) = match bad {
        BadItem::NotANumber(at) => (at, "expected a number"),
        BadItem::NoComma(at) => (at, "expected `,` or `}`"),
    };
    E::custom(SimpleSpan::from(offset + at..offset + at + 1), message)
}

/// The commas and `#`s of a number list's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Marks {
    commas: usize,
    comments: usize,
}

impl Marks {
    /// An upper bound on the number of items: one more than the commas
    /// (some may be in comments).
    fn items(self) -> usize {
        self.commas + 1
    }
}

/// Counts the commas and `#`s of `text` into a byte per 255 bytes of text,
/// which the compiler turns into vector instructions: a third of the time
/// of counting one by one.
fn count_marks(text: &str) -> Marks {
    let count = |chunk: &[u8], mark: u8| chunk.iter().fold(0u8, |n, &b| n + u8::from(b == mark));
    text.as_bytes().chunks(255).fold(
        Marks {
            commas: 0,
            comments: 0,
        },
        |marks, chunk| Marks {
            commas: marks.commas + usize::from(count(chunk, b',')),
            comments: marks.comments + usize::from(count(chunk, b'#')),
        },
    )
}

/// The numbers of a [`Token::Numbers`] text, or the error of the first
/// item that is not one. `offset` is the text's position in the source.
fn number_items<'s, E: CustomError>(
    text: &'s str,
    offset: usize,
) -> impl Iterator<Item = Result<(Literal<'s>, SimpleSpan), E>> {
    list_items(text.as_bytes()).map(move |item| number_literal(text, item.span, offset))
}

/// The number that makes up the item at `span` of `text` (at `offset` in
/// the source), as a literal with its span in the source.
fn number_literal<E: CustomError>(
    text: &str,
    span: Range<usize>,
    offset: usize,
) -> Result<(Literal<'_>, SimpleSpan), E> {
    let at = number_in_item(text.as_bytes(), span).map_err(|bad| item_error(bad, offset))?;
    let number = &text[at.clone()];
    let digits = number.strip_prefix('-').unwrap_or(number);
    let literal = if digits.bytes().all(|b| b.is_ascii_digit()) {
        Literal::Int(number)
    } else {
        Literal::Float(number)
    };
    Ok((
        literal,
        SimpleSpan::from(offset + at.start..offset + at.end),
    ))
}

/// The value of an item of an integer list that is not a plain integer
/// [`FromPlain`] reads (the last item, a long one, one out of range), or
/// what is wrong with it, as [`store_values`] says it.
fn integer_item<T, E>(text: &str, span: Range<usize>, offset: usize) -> Result<T, E>
where
    T: std::str::FromStr + IntegerName,
    E: CustomError,
{
    match number_literal(text, span, offset)? {
        (Literal::Int(number), at) => parse_integer(number, at),
        (Literal::Float(number), at) => Err(not_an_integer(number, at)),
        (Literal::Bytes(_), at) => Err(E::custom(at, "expected a number, found a string")),
    }
}

/// The error for a literal that is not an integer where one is expected.
fn not_an_integer<E: CustomError>(literal: &str, span: SimpleSpan) -> E {
    E::custom(span, format!("expected an integer, found `{literal}`"))
}

/// Converts literals into the typed field the reference uses for
/// `data_type`.
fn store_values<'s, E: CustomError>(
    tensor: &mut TensorProto,
    data_type: i32,
    items: impl Iterator<Item = Result<(Literal<'s>, SimpleSpan), E>>,
    count: usize,
    type_span: SimpleSpan,
) -> Result<(), E> {
    let Some(storage) = storage(data_type) else {
        return Err(E::custom(
            type_span,
            "values cannot be written for this element type",
        ));
    };
    match storage {
        Storage::Int32 | Storage::NarrowFloat => tensor.int32_data.reserve(count),
        Storage::Int64 => tensor.int64_data.reserve(count),
        Storage::Uint64 => tensor.uint64_data.reserve(count),
        Storage::Float => tensor.float_data.reserve(count),
        Storage::Double => tensor.double_data.reserve(count),
        Storage::Bytes => tensor.string_data.reserve(count),
    }
    for item in items {
        let (literal, span) = item?;
        match (storage, literal) {
            (Storage::Int32 | Storage::NarrowFloat, Literal::Int(text)) => {
                tensor.int32_data.push(parse_integer::<i32, _>(text, span)?);
            }
            (Storage::NarrowFloat, Literal::Float(text)) => {
                let value = parse_float::<f64, _>(text, span)?;
                let bits = crate::tensor_data::float_to_bits(data_type, value)
                    .ok_or_else(|| E::custom(span, "this element type has no decimal form"))?;
                tensor.int32_data.push(bits as i32);
            }
            (Storage::Int64, Literal::Int(text)) => {
                tensor.int64_data.push(parse_integer::<i64, _>(text, span)?)
            }
            (Storage::Uint64, Literal::Int(text)) => {
                tensor
                    .uint64_data
                    .push(parse_integer::<u64, _>(text, span)?)
            }
            (Storage::Float, Literal::Int(text) | Literal::Float(text)) => {
                tensor.float_data.push(parse_float::<f32, _>(text, span)?);
            }
            (Storage::Double, Literal::Int(text) | Literal::Float(text)) => {
                tensor.double_data.push(parse_float::<f64, _>(text, span)?);
            }
            (Storage::Bytes, Literal::Bytes(bytes)) => tensor.string_data.push(bytes),
            (Storage::Bytes, _) => {
                return Err(E::custom(span, "a string tensor needs string values"));
            }
            (_, Literal::Bytes(_)) => {
                return Err(E::custom(span, "expected a number, found a string"));
            }
            (_, Literal::Float(text)) => return Err(not_an_integer(text, span)),
        }
    }
    Ok(())
}

fn parse_integer<T: std::str::FromStr + IntegerName, E: CustomError>(
    text: &str,
    span: SimpleSpan,
) -> Result<T, E> {
    text.parse()
        .map_err(|_| E::custom(span, super::common::out_of_range::<T>(text)))
}

/// Parses a float literal with correct rounding straight to `T` (so an
/// `f32` is never rounded twice through `f64`).
pub(crate) fn parse_float<T: std::str::FromStr + IsInfinite, E: CustomError>(
    text: &str,
    span: SimpleSpan,
) -> Result<T, E> {
    match text.parse::<T>() {
        Ok(value)
            if !value.is_infinite()
                || text
                    .bytes()
                    .any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') =>
        {
            Ok(value)
        }
        Ok(_) => Err(E::custom(
            span,
            format!("`{text}` is too large for its type"),
        )),
        Err(_) => Err(E::custom(span, format!("`{text}` is not a valid number"))),
    }
}

/// Lets [`parse_float`] reject literals that overflow to infinity.
pub(crate) trait IsInfinite {
    /// Whether the value is ±infinity.
    fn is_infinite(&self) -> bool;
}

impl IsInfinite for f32 {
    fn is_infinite(&self) -> bool {
        f32::is_infinite(*self)
    }
}

impl IsInfinite for f64 {
    fn is_infinite(&self) -> bool {
        f64::is_infinite(*self)
    }
}

/// [ext] `sparse_tensor[dims] {values: tensor, indices: tensor}`.
pub(crate) fn sparse_constant<'t, 's: 't, I: Tokens<'t, 's>, E: Fail<'t, I>>(
    tensor: Parsed<'t, I, E, TensorProto>,
    annotation: Parsed<'t, I, E, Vec<Entry>>,
) -> Parsed<'t, I, E, SparseTensorProto> {
    let dims = integer::<I, E, i64>()
        .separated_by(just(Token::Comma))
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBracket), just(Token::RBracket));
    let field = select! { Token::Ident(key) if key == "values" || key == "indices" => key }
        .map_with(|key, e| (key, e.span()))
        .then_ignore(just(Token::Colon))
        .then(tensor);
    let fields = field
        .separated_by(just(Token::Comma))
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBrace), just(Token::RBrace));
    annotation
        .or_not()
        .then_ignore(super::common::keyword(crate::vocabulary::SPARSE_TENSOR))
        .then(dims)
        .then(fields)
        .validate(|((entries, dims), fields), _, emitter| {
            let mut sparse = SparseTensorProto {
                dims,
                ..SparseTensorProto::default()
            };
            for ((key, span), tensor) in fields {
                let slot = if key == "values" {
                    &mut sparse.values
                } else {
                    &mut sparse.indices
                };
                if slot.replace(tensor).is_some() {
                    emitter.emit(E::custom(span, format!("`{key}` is given twice")));
                }
            }
            if let Some(entries) = entries {
                if let Err(d) = annotation::apply_sparse_tensor(&mut sparse, entries) {
                    emit_diagnostic(emitter, d);
                }
            }
            sparse
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use chumsky::error::EmptyErr;

    use crate::parse_tensor;

    /// The fast path reads every literal the lexer lets into a number list
    /// exactly as `str::parse` does, to the bit, and over the same text.
    #[test]
    fn fast_float_lists_agree_with_str_parse() {
        let literals = [
            "0",
            "-0",
            "1",
            "1.",
            "-1.5",
            "0.1",
            "3.4028235e38",
            "3.4028236e38",
            "1e-45",
            "7e-46",
            "1e+22",
            "1E22",
            "-2.5e-3",
            "123456789012345678901234567890",
            "0.000000000000000000000000000000000000000000001401298464324817",
            "2.2250738585072014e-308",
            "4.9e-324",
            "1.7976931348623157e308",
            "nan",
            "-nan",
            "NaN",
            "inf",
            "-inf",
            "Infinity",
            "-INFINITY",
            "00012",
            "1.000000000000000000001",
            // Plain decimals, read by the fast path when a comma follows.
            "-0.0130350245",
            "0.12345678901234",
            "16777217",
            "999999999999999",
        ];
        for literal in literals {
            let list = format!("{literal}, {literal} # note\n, {literal}");
            assert_eq!(
                crate::lexer::skip_number(list.as_bytes(), 0),
                Some(literal.len())
            );
            let (mut floats, mut doubles) = (Vec::new(), Vec::new());
            let floats_ok = super::number_list::<f32, EmptyErr>(&mut floats, &list, 0).is_ok();
            let doubles_ok = super::number_list::<f64, EmptyErr>(&mut doubles, &list, 0).is_ok();
            match literal.parse::<f32>() {
                Ok(x) if !x.is_infinite() || literal.contains(['i', 'I']) => {
                    assert!(floats_ok, "{literal}");
                    assert_eq!(floats.len(), 3);
                    assert!(
                        floats.iter().all(|f| f.to_bits() == x.to_bits()),
                        "{literal}"
                    );
                }
                _ => assert!(!floats_ok, "{literal} overflows f32"),
            }
            let x = literal.parse::<f64>().unwrap();
            assert!(doubles_ok, "{literal}");
            assert!(
                doubles.iter().all(|f| f.to_bits() == x.to_bits()),
                "{literal}"
            );
        }
    }

    #[test]
    fn values_go_where_the_reference_puts_them() {
        let t = parse_tensor("int8[3] x = {1, -2, 3}").unwrap();
        assert_eq!(
            (
                t.dims.as_slice(),
                t.int32_data.as_slice(),
                t.name.as_deref()
            ),
            (&[3][..], &[1, -2, 3][..], Some("x"))
        );
        assert_eq!(
            parse_tensor("int64[1] {-9223372036854775808}")
                .unwrap()
                .int64_data,
            vec![i64::MIN]
        );
        assert_eq!(
            parse_tensor("uint64[1] {18446744073709551615}")
                .unwrap()
                .uint64_data,
            vec![u64::MAX]
        );
        assert_eq!(
            parse_tensor("float[2] {1, 0.1}").unwrap().float_data,
            vec![1.0, 0.1f32]
        );
        assert_eq!(
            parse_tensor("double[1] {0.1}").unwrap().double_data,
            vec![0.1f64]
        );
        assert_eq!(
            parse_tensor("complex64[1] {1, 2}").unwrap().float_data,
            vec![1.0, 2.0]
        );
        assert_eq!(
            parse_tensor("string[2] {\"a\", \"b\\\"\"}")
                .unwrap()
                .string_data,
            vec![b"a".to_vec(), b"b\"".to_vec()]
        );
        assert_eq!(
            parse_tensor("float16[1] {15360}").unwrap().int32_data,
            vec![15360]
        );
        assert_eq!(
            parse_tensor("float {nan}").unwrap().float_data[0].to_bits(),
            f32::NAN.to_bits()
        );
        let t = parse_tensor("float[1] w = [\"location\": \"w.bin\", \"offset\": \"0\"]").unwrap();
        assert_eq!((t.data_location, t.external_data.len()), (Some(1), 2));
    }

    #[test]
    fn floats_are_rounded_once_to_f32() {
        // Rounding this literal via f64 would give a different f32.
        let text = "1.00000005960464477539062500001";
        let direct: f32 = text.parse().unwrap();
        assert_eq!(
            parse_tensor(&format!("float[1] {{{text}}}"))
                .unwrap()
                .float_data,
            vec![direct]
        );
        assert_ne!(direct, text.parse::<f64>().unwrap() as f32);
    }

    #[test]
    fn decimal_literals_in_half_precision_tensors() {
        assert_eq!(
            parse_tensor("float16[2] {1.5, -0.25}").unwrap().int32_data,
            vec![0x3E00, 0xB400]
        );
        assert_eq!(
            parse_tensor("bfloat16[1] {1.0}").unwrap().int32_data,
            vec![0x3F80]
        );
    }

    #[test]
    fn wrong_values_are_errors() {
        for text in [
            "int32[1] {1.5}",
            "int32[1] {2147483648}",
            "int64[1] {9223372036854775808}",
            "uint64[1] {-1}",
            "float[1] {1e39}",
            "float[1] {1e}",
            "float[N] {1}",
            "float[] {1}",
            "string[1] {1}",
            "float[1] {\"a\"}",
        ] {
            assert!(parse_tensor(text).is_err(), "{text}");
        }
    }

    /// The lexer only delimits a list that starts with a number: the
    /// parser finds what is wrong with the rest, and says where.
    #[test]
    fn malformed_lists_are_errors_where_they_go_wrong() {
        for (text, at, message) in [
            ("float[3] {1, x, 2}", "x", "expected a number"),
            ("double[3] {1.5,, 2}", ",", "expected a number"),
            ("float[2] {1, 2, }", "}", "expected a number"),
            ("float[2] {1, 2 3}", "3", "expected `,` or `}`"),
            ("float[2] {1, 2 # two\n 3}", "3", "expected `,` or `}`"),
            ("int64[2] {7, y}", "y", "expected a number"),
            ("int8[2] {7 8}", "8", "expected `,` or `}`"),
            ("float16[2] {0.5, 2x}", "2", "expected a number"),
        ] {
            let error = parse_tensor(text).unwrap_err();
            assert_eq!(&text[error.span()], at, "{text}");
            assert!(error.to_string().contains(message), "{text}: {error}");
        }
    }

    #[test]
    fn error_spans_point_at_the_element() {
        let text = "int32[3] {1, 2, 99999999999}";
        let error = parse_tensor(text).unwrap_err();
        assert_eq!(&text[error.span()], "99999999999");
    }

    /// A list long enough for two threads reads exactly as on one thread
    /// (a comment keeps it there), values and errors alike, wherever the
    /// mistake is.
    #[test]
    fn long_lists_read_the_same_on_two_threads() {
        let items: Vec<String> = (0..150_000)
            .map(|i| format!("{}", (i as f64 * 0.37).sin() / 7.0))
            .collect();
        let body = items.join(", ");
        assert!(body.len() >= crate::parallel::MIN_TEXT);
        let both = |ty: &str, body: &str| {
            let n = items.len();
            let two = parse_tensor(&format!("{ty}[{n}] w = {{{body}}}"));
            let one = parse_tensor(&format!("{ty}[{n}] w = {{{body} # one thread\n}}"));
            (two, one)
        };
        for ty in ["float", "double"] {
            let (two, one) = both(ty, &body);
            assert_eq!(two.unwrap(), one.unwrap(), "{ty}");
        }
        let last = items.len() - 10;
        for (at, bad) in [(10, "1e999"), (last, "1e999"), (last, "x"), (last, "")] {
            let mut broken = items.clone();
            broken[at] = bad.to_owned();
            let (two, one) = both("float", &broken.join(", "));
            let (two, one) = (two.unwrap_err(), one.unwrap_err());
            assert_eq!(two.to_string(), one.to_string(), "{bad} at {at}");
            assert_eq!(two.span(), one.span(), "{bad} at {at}");
        }
        // A trailing comma: the error is at the `}`, which the comment moves.
        let text = format!("float[1] w = {{{body}, }}");
        assert_eq!(&text[parse_tensor(&text).unwrap_err().span()], "}");
    }

    /// Counting in bytes per 255-byte chunk never overflows a chunk made of
    /// commas only, and adds up across chunks.
    #[test]
    fn count_marks_counts_every_comma_and_comment() {
        let marks = |text: &str| {
            let marks = super::count_marks(text);
            (marks.items(), marks.comments)
        };
        assert_eq!(marks(&",".repeat(1000)), (1001, 0));
        assert_eq!(marks(&"1.5, # c\n".repeat(700)), (701, 700));
        assert_eq!(marks("7"), (1, 0));
    }
}
