// The operators and attribute names of a model, read from its binary form:
// what the real parser made of the text, to hold the grammar's scopes
// against. A minimal protobuf reader: only the fields on the way to them.

import { onnxtxt } from './onnxtxt.mjs';

// Field numbers of onnx.proto (grammar/onnx.proto in the repository).
const MODEL = { graph: 7, trainingInfo: 20, functions: 25 };
const TRAINING_INFO = { initialization: 1, algorithm: 2 };
const GRAPH = { node: 1 };
const NODE = { opType: 4, attribute: 5, domain: 7 };
const ATTRIBUTE = { name: 1, g: 6, graphs: 11 };
const FUNCTION = { node: 7, attribute: 6, attributeProto: 11 };

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

/** The fields of one message: `[{ number, bytes }]` for length-delimited ones, in order. */
function fields(message) {
  const found = [];
  let pos = 0;
  const varint = () => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = message[pos++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (pos < message.length) {
    const key = varint();
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === WIRE_VARINT) varint();
    else if (wire === WIRE_FIXED64) pos += 8;
    else if (wire === WIRE_FIXED32) pos += 4;
    else if (wire === WIRE_BYTES) {
      const length = Number(varint());
      found.push({ number, bytes: message.subarray(pos, pos + length) });
      pos += length;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return found;
}

const field = (message, number) => fields(message).filter((f) => f.number === number).map((f) => f.bytes);
const text = (bytes) => Buffer.from(bytes).toString('utf8');

/** What the tests compare: `operators` in text order, `attributes` names in any order. */
class Facts {
  operators = [];
  attributes = [];

  graph(graph) {
    for (const node of field(graph, GRAPH.node)) {
      this.node(node);
    }
  }

  node(node) {
    const [opType] = field(node, NODE.opType);
    const [domain] = field(node, NODE.domain);
    this.operators.push({ opType: opType ? text(opType) : '', domain: domain ? text(domain) : '' });
    for (const attribute of field(node, NODE.attribute)) {
      this.attribute(attribute);
    }
  }

  attribute(attribute) {
    const [name] = field(attribute, ATTRIBUTE.name);
    this.attributes.push(name ? text(name) : '');
    for (const graph of [...field(attribute, ATTRIBUTE.g), ...field(attribute, ATTRIBUTE.graphs)]) {
      this.graph(graph);
    }
  }

  function(fn) {
    this.attributes.push(...field(fn, FUNCTION.attribute).map(text));
    for (const attribute of field(fn, FUNCTION.attributeProto)) {
      this.attribute(attribute);
    }
    for (const node of field(fn, FUNCTION.node)) {
      this.node(node);
    }
  }
}

/**
 * The facts of the binary model `model`: its nodes' operators
 * (`{ opType, domain }`) in the order the text shows them (training graphs
 * in the header, the main graph, then the functions; a node before the
 * nodes of its attributes' graphs), and the names of all attributes, of
 * nodes and declared by functions.
 */
export function modelFacts(model) {
  const facts = new Facts();
  for (const info of field(model, MODEL.trainingInfo)) {
    for (const graph of [...field(info, TRAINING_INFO.initialization), ...field(info, TRAINING_INFO.algorithm)]) {
      facts.graph(graph);
    }
  }
  for (const graph of field(model, MODEL.graph)) {
    facts.graph(graph);
  }
  for (const fn of field(model, MODEL.functions)) {
    facts.function(fn);
  }
  return { operators: facts.operators, attributes: facts.attributes };
}

/** The facts of the model text `source`, as `onnxtxt parse` reads it. */
export const textFacts = (source) => modelFacts(onnxtxt(['parse', '-'], source));
