//! Text and media: `StringNormalizer`, `StringConcat`, `StringSplit`,
//! `RegexFullMatch`, `TfIdfVectorizer`, `ImageDecoder`. Strings the
//! generator makes are decimal numbers (so that `Cast` reads them too);
//! the patterns, stop words and delimiters are chosen to meet them; the
//! image is a small BMP file.

use arbitrary::Result;

use super::{
    floats_attribute, int_attribute, ints_attribute, node, string_attribute, strings_attribute,
    Builder, Need, Recipe, Valid,
};
use crate::infer::Dim;
use crate::ops::Schema;
use crate::smith::config::ElementType;

pub(super) const RECIPES: &[(&str, Recipe)] = &[
    ("StringNormalizer", string_normalizer),
    ("StringConcat", string_concat),
    ("StringSplit", string_split),
    ("RegexFullMatch", regex_full_match),
    ("TfIdfVectorizer", tf_idf_vectorizer),
    ("ImageDecoder", image_decoder),
];

/// `StringNormalizer` of a `[C]` or `[1, C]` tensor: a case change, stop
/// words, case sensitivity, each sometimes.
fn string_normalizer(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(elem) = g.accepted_elem(schema, 0)? else {
        return Ok(false);
    };
    let mut shape = vec![g.dim()?];
    if g.chance(1, 2)? {
        shape.insert(0, Dim::Value(1));
    }
    let Some(x) = g.value_of(b, elem, &shape)? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    if g.chance(2, 3)? {
        let action = g.pick(&["NONE", "LOWER", "UPPER"])?;
        attributes.push(string_attribute("case_change_action", action));
    }
    if g.chance(1, 2)? {
        attributes.push(strings_attribute("stopwords", &["0", "1", "12"]));
    }
    if g.chance(1, 3)? {
        attributes.push(int_attribute("is_case_sensitive", 1));
    }
    Ok(g.add(b, node(schema, vec![x], attributes), 1))
}

/// `StringConcat` of a string tensor and one that broadcasts to it.
fn string_concat(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let shape = g.broadcast_shape(&x.shape)?;
    let Some(y) = g.value_of(b, x.elem, &shape)? else {
        return Ok(false);
    };
    let mut inputs = vec![x.name, y];
    if g.u.arbitrary()? {
        inputs.reverse();
    }
    Ok(g.add(b, node(schema, inputs, Vec::new()), 1))
}

/// `StringSplit` at a digit or at whitespace, sometimes at most once.
fn string_split(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let mut attributes = Vec::new();
    if g.chance(2, 3)? {
        attributes.push(string_attribute("delimiter", g.pick(&["1", "2", "00"])?));
    }
    if g.chance(1, 3)? {
        attributes.push(int_attribute("maxsplit", 1));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 2))
}

fn regex_full_match(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let Some(x) = g.input0(b, schema, Need::ANY)? else {
        return Ok(false);
    };
    let pattern = g.pick(&[r"[0-9]+", r"1.*", r"\d\d", r"(2|3)+0?"])?;
    let attributes = vec![string_attribute("pattern", pattern)];
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `TfIdfVectorizer` of integers (1-D or 2-D) counting a pool of unigrams
/// and bigrams of small numbers, its mode and skips drawn.
fn tf_idf_vectorizer(
    g: &mut Valid<'_, '_>,
    b: &mut Builder,
    schema: &'static Schema,
) -> Result<bool> {
    let elems = g.accepted_where(schema, 0, |e| e.is_integer());
    let Some(x) = g.operand(b, &elems, Need::rank(1, 2))? else {
        return Ok(false);
    };
    let unigrams: Vec<i64> = (1..=g.int(1, 4)?).collect();
    let max_gram = g.int(1, 2)?;
    let mut pool = unigrams.clone();
    let mut counts = vec![0];
    if max_gram == 2 {
        counts.push(pool.len() as i64);
        for _ in 0..g.int(1, 3)? {
            pool.extend([g.int(1, 4)?, g.int(1, 4)?]);
        }
    }
    let ngrams = unigrams.len() as i64 + (pool.len() - unigrams.len()) as i64 / 2;
    let indexes = g.permutation(ngrams as usize)?;
    let mode = g.pick(&["TF", "IDF", "TFIDF"])?;
    let mut attributes = vec![
        int_attribute("min_gram_length", g.int(1, max_gram)?),
        int_attribute("max_gram_length", max_gram),
        int_attribute("max_skip_count", g.int(0, 1)?),
        string_attribute("mode", mode),
        ints_attribute("ngram_counts", counts),
        ints_attribute("ngram_indexes", indexes),
        ints_attribute("pool_int64s", pool),
    ];
    if mode != "TF" && g.chance(1, 2)? {
        let weights = (0..ngrams).map(|i| 1.0 + i as f32 / 4.0).collect();
        attributes.push(floats_attribute("weights", weights));
    }
    Ok(g.add(b, node(schema, vec![x.name], attributes), 1))
}

/// `ImageDecoder` of a constant BMP file of a few pixels, in RGB, BGR or
/// grayscale.
fn image_decoder(g: &mut Valid<'_, '_>, b: &mut Builder, schema: &'static Schema) -> Result<bool> {
    let (width, height) = (g.int(1, 4)? as usize, g.int(1, 4)? as usize);
    let mut pixels = vec![0u8; width * height * 3];
    g.u.fill_buffer(&mut pixels)?;
    let file = bmp(width, height, &pixels);
    let values: Vec<f64> = file.iter().map(|&byte| f64::from(byte)).collect();
    let stream = g.constant(b, ElementType::Uint8, vec![file.len() as i64], &values);
    let format = g.pick(&["RGB", "BGR", "Grayscale"])?;
    let attributes = vec![string_attribute("pixel_format", format)];
    Ok(g.add(b, node(schema, vec![stream], attributes), 1))
}

/// A 24-bit BMP file of `width × height` pixels (3 bytes each, top row
/// first).
fn bmp(width: usize, height: usize, pixels: &[u8]) -> Vec<u8> {
    let row = (3 * width).div_ceil(4) * 4;
    let size = 54 + row * height;
    let le32 = |v: usize| (v as u32).to_le_bytes();
    let mut file = Vec::with_capacity(size);
    file.extend(b"BM");
    file.extend(le32(size));
    file.extend([0; 4]);
    file.extend(le32(54));
    file.extend(le32(40));
    file.extend(le32(width));
    // A negative height: rows top to bottom.
    file.extend((-(height as i32)).to_le_bytes());
    file.extend([1, 0, 24, 0]);
    file.extend([0; 4]);
    file.extend(le32(row * height));
    file.extend([0; 16]);
    for line in pixels.chunks(3 * width) {
        file.extend(line);
        file.resize(file.len() + row - line.len(), 0);
    }
    file
}
