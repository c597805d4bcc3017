// The TextMate grammar of the ONNX textual syntax, as code: `grammar()`
// returns the object that build.mjs writes to onnxtxt.tmLanguage.json.
//
// The syntax is grammar/onnxtxt.ebnf of the repository. A TextMate grammar
// sees one line at a time through regular expressions, so it follows the
// structure by bracket regions, each with the rules that hold inside it:
//
//   top level      header `<...>`, annotations, declarations
//   declaration    NAME [<attributes>] (signature) => ...   a graph or function
//   graph          NAME (signature) => ...                  a graph-valued attribute
//   graph tail     => (signature) [<value infos>] {body}
//   body           nodes: [label] outputs = domain.Op:overload <attributes> (inputs)
//   attributes     name: type = value, ...
//   values         numbers, strings, types, tensors, graphs, lists, @references
//
// The same word gets its colour from where it stands: `float` is an element
// type in a signature, an attribute type after `name:`, and a value name in
// a node's inputs (where the parser reads it as one).

import { ATTRIBUTE_TYPES, ELEMENT_TYPES, TYPE_KEYWORDS, VALUE_KEYWORDS } from './words.mjs';

/** The grammar's root scope; every scope below ends with `.onnxtxt`. */
export const SCOPE_NAME = 'source.onnxtxt';

const LANGUAGE = 'onnxtxt';

/** `scope('a.b c.d')` is `a.b.onnxtxt c.d.onnxtxt`. */
const scope = (names) => names.split(' ').map((name) => `${name}.${LANGUAGE}`).join(' ');

// Regular expression pieces (Oniguruma syntax). Identifiers are ASCII only,
// as in the lexer: Oniguruma's \b and \w would take any Unicode letter.
const WORD_START = String.raw`(?<![A-Za-z0-9_])`;
const WORD_END = String.raw`(?![A-Za-z0-9_])`;
/** What may not follow a number: the lexer would read a different token. */
const NUMBER_END = String.raw`(?![A-Za-z0-9_.])`;
const ID = String.raw`[A-Za-z_][A-Za-z0-9_]*`;
/** A quoted string on one line (`b"..."` for bytes); `\c` stands for `c`. */
const QUOTED = String.raw`(?:${WORD_START}b)?"(?:[^"\\]|\\.)*"`;
/** A quotable identifier. Quoted ones that span lines are read by `quoted`. */
const NAME = String.raw`(?:${QUOTED}|${WORD_START}${ID})`;
/**
 * Where an operator ends: at what follows it in a node, or at the end of
 * its line (so that `y = Add` being typed does not take the next line's
 * output name for its operator).
 */
const OPERATOR_END = String.raw`(?=[<(){}\[\]>,=@])|$`;
const words = (list) => `${WORD_START}(?:${list.join('|')})${WORD_END}`;

const include = (...names) => names.map((name) => ({ include: `#${name}` }));

/**
 * A quoted name or string, possibly over several lines, in `role` (quotes
 * included). `lead` is what must come just before the opening quote: a
 * regular expression with no groups, scoped `leadScope` (if given) in `role`.
 */
function quoted(role, quote, { lead = '', leadScope } = {}) {
  const inRole = (names) => scope(role ? `${role} ${names}` : names);
  const region = (parts, patterns) => {
    const scoped = parts.filter(([, names]) => names);
    return {
      begin: parts.map(([text, names]) => (names ? `(${text})` : text)).join(''),
      beginCaptures: Object.fromEntries(scoped.map(([, names], i) => [i + 1, { name: inRole(names) }])),
      end: '"',
      endCaptures: { 0: { name: inRole(`${quote}.end`) } },
      ...(role && { contentName: scope(role) }),
      patterns: include(...patterns),
    };
  };
  const open = ['"', `${quote}.begin`];
  return [
    region([[lead, leadScope], [`${WORD_START}b`, 'storage.type.string'], open], ['byte-escape', 'escape']),
    region([[lead, leadScope], open], ['escape']),
  ];
}

/** A bare or quoted name, standing alone, in `role`; `lead` as for `quoted`. */
function names(role, lead = {}) {
  const bare = lead.leadScope
    ? { match: `(${lead.lead})${ID}`, captures: { 1: { name: scope(lead.leadScope) } } }
    : { match: `${lead.lead ?? ''}${WORD_START}${ID}` };
  // Quoted first: `b"..."` is a byte string, not the name `b`.
  return [...quoted(role, 'punctuation.definition.quote', lead), { ...bare, name: scope(role) }];
}

/** A capture holding a NAME: `role`, with its quotes and escapes. */
const nameCapture = (role) => ({ name: scope(role), patterns: include('quote-parts') });

/** A bracketed region: `open` and `close` (regular expressions) with `patterns` inside. */
function region(meta, open, close, punctuation, patterns) {
  return {
    begin: open,
    beginCaptures: { 0: { name: scope(`${punctuation}.begin`) } },
    end: close,
    endCaptures: { 0: { name: scope(`${punctuation}.end`) } },
    name: scope(meta),
    patterns,
  };
}

const PARENS = 'punctuation.section.parens';
const BRACKETS = 'punctuation.section.brackets';
const BRACES = 'punctuation.section.braces';
const ANGLES = 'punctuation.section.angle-brackets';

/** What may stand anywhere: comments and text that is never valid. */
const TRIVIA = include('comment', 'mistakes');

const repository = {
  comment: {
    match: '(#).*',
    name: scope('comment.line.number-sign'),
    captures: { 1: { name: scope('punctuation.definition.comment') } },
  },
  escape: { match: String.raw`\\[\s\S]`, name: scope('constant.character.escape') },
  'byte-escape': { match: String.raw`\\x[0-9A-Fa-f]{2}`, name: scope('constant.character.escape.byte') },
  /** The quotes and escapes of a quoted name matched as a whole. */
  'quote-parts': { patterns: quoted(null, 'punctuation.definition.quote') },
  string: { patterns: quoted('string.quoted.double', 'punctuation.definition.string') },

  mistakes: {
    patterns: [
      // `print --elide` output: never valid input.
      { match: String.raw`\.\.\.(?: +[0-9]+ +more)?`, name: scope('invalid.illegal.elided') },
      // A misspelt `=>`.
      { match: '->', name: scope('invalid.illegal.arrow') },
      // What the lexer reads as no token at all.
      {
        match: String.raw`[^ \t\n\r\x0B\x0CA-Za-z0-9_"#{}()\[\]<>@=,:.?\-]`,
        name: scope('invalid.illegal.character'),
      },
    ],
  },
  comma: { match: ',', name: scope('punctuation.separator.comma') },
  colon: { match: ':', name: scope('punctuation.separator.key-value') },
  assignment: { match: '=(?!>)', name: scope('keyword.operator.assignment') },

  number: {
    patterns: [
      { match: `${WORD_START}-?(?i:infinity|inf)${WORD_END}`, name: scope('constant.language.infinity') },
      { match: `${WORD_START}-?(?i:nan)${WORD_END}`, name: scope('constant.language.nan') },
      {
        match: String.raw`${WORD_START}-?[0-9]+(?:\.[0-9]*(?:[eE][+-]?[0-9]*)?|[eE][+-]?[0-9]*)${NUMBER_END}`,
        name: scope('constant.numeric.float'),
      },
      { match: `${WORD_START}-?[0-9]+${NUMBER_END}`, name: scope('constant.numeric.integer') },
      // A number glued to letters (`0x1F`, `1.5f`): the parser rejects it.
      { match: String.raw`${WORD_START}-?[0-9][A-Za-z0-9_.]*`, name: scope('invalid.illegal.number') },
    ],
  },

  // ------------------------------------------------------------- types
  type: {
    patterns: [
      {
        begin: String.raw`${words(TYPE_KEYWORDS)}\s*\(`,
        beginCaptures: { 0: { patterns: include('type-keyword', 'open-paren') } },
        end: String.raw`\)`,
        endCaptures: { 0: { name: scope(`${PARENS}.end`) } },
        name: scope('meta.type'),
        patterns: [
          ...TRIVIA,
          ...include('type', 'comma'),
          { match: String.raw`\.`, name: scope('punctuation.accessor') },
          // The name and domain of an opaque type.
          ...names('entity.name.type'),
        ],
      },
      {
        // A shape, or the dims of a sparse tensor constant.
        begin: String.raw`(?:${words(ELEMENT_TYPES)}|${words(['sparse_tensor'])})\s*\[`,
        beginCaptures: { 0: { patterns: include('element-type', 'type-keyword', 'open-bracket') } },
        end: String.raw`\]`,
        endCaptures: { 0: { name: scope(`${BRACKETS}.end`) } },
        name: scope('meta.shape'),
        patterns: [
          ...TRIVIA,
          { match: String.raw`\?`, name: scope('constant.language.unknown-dimension') },
          { match: `${WORD_START}-?[0-9]+`, name: scope('constant.numeric.integer') },
          ...names('variable.other.dimension'),
          ...include('comma'),
        ],
      },
      ...include('element-type'),
    ],
  },
  'element-type': { match: words(ELEMENT_TYPES), name: scope('storage.type.primitive') },
  'type-keyword': { match: words(TYPE_KEYWORDS), name: scope('storage.type') },
  'open-paren': { match: String.raw`\(`, name: scope(`${PARENS}.begin`) },
  'open-bracket': { match: String.raw`\[`, name: scope(`${BRACKETS}.begin`) },

  // ------------------------------------------------------------ values
  value: {
    patterns: [
      ...TRIVIA,
      // A type or a graph before a string: `seq(...)` and `"g" (x) => ...` are no names.
      ...include('annotation', 'attribute-reference', 'type', 'graph', 'string', 'braces', 'list'),
      ...include('number'),
      { match: words(VALUE_KEYWORDS), name: scope('constant.language') },
      // The rest of a graph whose name spans lines (so that `graph` missed it).
      ...include('signature', 'graph-tail'),
      ...include('assignment', 'comma', 'colon'),
      // The name of a tensor constant.
      ...names('variable.other.tensor'),
    ],
  },
  'attribute-reference': {
    patterns: names('variable.other.attribute-reference', {
      lead: '@',
      leadScope: 'punctuation.definition.attribute-reference',
    }),
  },
  // Tensor data, sparse tensor constants and annotation messages.
  braces: region('meta.braces', String.raw`\{`, String.raw`\}`, BRACES, [
    ...TRIVIA,
    ...include('property-key', 'value'),
  ]),
  // Attribute lists, external data and annotation lists.
  list: region('meta.list', String.raw`\[`, String.raw`\]`, BRACKETS, include('value')),
  'property-key': {
    match: String.raw`${WORD_START}(${ID})\s*(:)`,
    captures: {
      1: { name: scope('support.type.property-name') },
      2: { name: scope('punctuation.separator.key-value') },
    },
  },

  // ------------------------------------------------- headers, annotations
  header: region('meta.header', '<', '>', ANGLES, [
    ...TRIVIA,
    {
      match: String.raw`${WORD_START}(${ID})\s*(:)`,
      captures: {
        1: { name: scope('keyword.other.header-key') },
        2: { name: scope('punctuation.separator.key-value') },
      },
    },
    ...include('value'),
  ]),
  annotation: region(
    'meta.annotation',
    '@<',
    '>',
    'storage.type.annotation punctuation.definition.annotation',
    [...TRIVIA, ...include('property-key', 'value')],
  ),

  // -------------------------------------------------- graphs, functions
  declaration: {
    // Zero-width, so that a quoted name may run over lines; `(?!\G)`: a
    // `}` just before the name does not end it at once.
    begin: `(?=[A-Za-z_"])`,
    end: String.raw`(?!\G)(?<=\})`,
    name: scope('meta.declaration'),
    patterns: [
      ...names('entity.name.function', { lead: String.raw`\G` }),
      // Before the mistakes, which mark `->` on its own.
      ...include('graph-tail'),
      ...TRIVIA,
      ...include('annotation', 'attributes', 'signature'),
    ],
  },
  graph: {
    begin: String.raw`(${NAME})\s*(?=\(|=>)`,
    beginCaptures: { 1: nameCapture('entity.name.function') },
    end: String.raw`(?<=\})`,
    name: scope('meta.graph'),
    patterns: [...include('graph-tail'), ...TRIVIA, ...include('annotation', 'signature')],
  },
  'graph-tail': {
    // `->` is a misspelt `=>`: marked, and what follows still read as a graph.
    begin: '(=>)|(->)',
    beginCaptures: {
      1: { name: scope('keyword.operator.arrow') },
      2: { name: scope('invalid.illegal.arrow') },
    },
    end: String.raw`(?<=\})`,
    patterns: [...TRIVIA, ...include('annotation', 'signature', 'value-infos', 'body')],
  },
  signature: region('meta.signature', String.raw`\(`, String.raw`\)`, PARENS, include('value-info')),
  'value-infos': region('meta.value-infos', '<', '>', ANGLES, include('value-info')),
  'value-info': {
    patterns: [
      ...TRIVIA,
      ...include('annotation', 'type', 'assignment', 'braces', 'list', 'comma'),
      ...names('variable.parameter'),
    ],
  },

  // ------------------------------------------------------------- nodes
  body: region('meta.body', String.raw`\{`, String.raw`\}`, BRACES, [
    ...TRIVIA,
    ...include('annotation', 'label', 'operator', 'inputs', 'attributes', 'comma'),
    ...names('variable.other.value'),
  ]),
  label: region('meta.label', String.raw`\[`, String.raw`\]`, BRACKETS, [
    ...TRIVIA,
    ...names('entity.name.label'),
  ]),
  // `= domain.Op:overload`, up to the attributes or inputs.
  operator: {
    begin: '=(?![>=])',
    beginCaptures: { 0: { name: scope('keyword.operator.assignment') } },
    end: OPERATOR_END,
    name: scope('meta.operator'),
    patterns: [
      ...TRIVIA,
      {
        match: String.raw`(${NAME})(?=\s*\.)`,
        captures: { 1: nameCapture('entity.name.namespace') },
      },
      { match: String.raw`\.`, name: scope('punctuation.accessor') },
      {
        begin: ':',
        beginCaptures: { 0: { name: scope('punctuation.separator.overload') } },
        end: OPERATOR_END,
        patterns: [...TRIVIA, ...names('entity.name.function.overload')],
      },
      ...names('entity.name.function.operator'),
    ],
  },
  inputs: region('meta.inputs', String.raw`\(`, String.raw`\)`, PARENS, [
    ...TRIVIA,
    ...include('comma'),
    ...names('variable.other.value'),
  ]),

  // -------------------------------------------------------- attributes
  // A node's attributes, or the attributes a function declares: at this
  // level only names, types and punctuation; values are in `attribute-value`.
  attributes: region('meta.attributes', '<', '>', ANGLES, [
    ...TRIVIA,
    ...include('annotation', 'attribute-type', 'attribute-value', 'comma'),
    ...names('entity.other.attribute-name'),
  ]),
  'attribute-value': {
    begin: '=(?!>)',
    beginCaptures: { 0: { name: scope('keyword.operator.assignment') } },
    end: '(?=[,>])',
    patterns: include('value'),
  },
  'attribute-type': {
    match: String.raw`(:)\s*(${words(ATTRIBUTE_TYPES)})`,
    captures: {
      1: { name: scope('punctuation.separator.type') },
      2: { name: scope('support.type.attribute') },
    },
  },
};

/** The grammar, ready to be written as JSON. */
export function grammar() {
  return {
    information_for_contributors: [
      'Generated by `npm run grammar` in editors/ from editors/grammar/grammar.mjs: edit that, not this.',
    ],
    name: 'ONNX text',
    scopeName: SCOPE_NAME,
    fileTypes: ['onnxtxt', 'onnxtext'],
    patterns: [...TRIVIA, ...include('header', 'annotation', 'declaration')],
    repository,
  };
}
