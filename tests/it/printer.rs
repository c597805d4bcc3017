//! Printer tests: snapshots of the printed text of hand-written IR values
//! covering every construct, and lossless round trips through the parser.

use onnxtxt::proto::*;
use onnxtxt::{parse_model, to_text, Printer};
use prost::Message;

use crate::tools::reference_python;

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(name, text);
    });
}

/// Prints `model`, parses the text back and checks the bytes are the same.
fn round_trip(model: &ModelProto) -> String {
    let text = to_text(model);
    let parsed =
        parse_model(&text).unwrap_or_else(|e| panic!("does not parse back: {e:?}\n{text}"));
    if parsed.encode_to_vec() != model.encode_to_vec() {
        panic!(
            "round trip differs\n--- text\n{text}\n--- parsed\n{parsed:#?}\n--- original\n{model:#?}"
        );
    }
    text
}

const BASIC: &str = r#"
<
  ir_version: 8,
  opset_import: ["" : 18, "com.microsoft": 1],
  producer_name: "onnxtxt",
  doc_string: "a model"
>
agraph (float[N, 128] X, float[128, 10] W, float[10] B) => (float[N, 10] C)
  <float[2] w2 = {1.5, -0.0}, int64[2] shape = {1, -1}, float[N] T>
{
  T = MatMul(X, W)
  [add] S = Add(T, B)
  C = Softmax <axis: int = 1> (S)
  D = com.microsoft.Foo:v2 <f: float = 0.1, s: string = "a\"b", ints: ints = [1, 2], fl: floats = [inf, -inf, nan]> (S, "")
}
"#;

#[test]
fn basic_model_round_trips() {
    let model = parse_model(BASIC).unwrap();
    let text = round_trip(&model);
    snapshot("basic_model", &text);
}

fn s(text: &str) -> Option<String> {
    Some(text.to_owned())
}

fn pairs(items: &[(&str, &str)]) -> Vec<StringStringEntryProto> {
    items
        .iter()
        .map(|(k, v)| StringStringEntryProto {
            key: s(k),
            value: s(v),
        })
        .collect()
}

fn tensor_type(elem: i32, dims: &[&str]) -> TypeProto {
    use tensor_shape_proto::{dimension, Dimension};
    TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(elem),
            shape: Some(TensorShapeProto {
                dim: dims
                    .iter()
                    .map(|d| Dimension {
                        value: Some(match d.parse::<i64>() {
                            Ok(n) => dimension::Value::DimValue(n),
                            Err(_) => dimension::Value::DimParam((*d).to_owned()),
                        }),
                        denotation: None,
                    })
                    .collect(),
            }),
        })),
        denotation: None,
    }
}

fn vi(name: &str, ty: Option<TypeProto>) -> ValueInfoProto {
    ValueInfoProto {
        name: s(name),
        r#type: ty,
        ..Default::default()
    }
}

fn node(outputs: &[&str], op: &str, inputs: &[&str], attribute: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|x| (*x).to_owned()).collect(),
        output: outputs.iter().map(|x| (*x).to_owned()).collect(),
        op_type: s(op),
        attribute,
        ..Default::default()
    }
}

fn attr(
    name: &str,
    ty: attribute_proto::AttributeType,
    fill: impl FnOnce(&mut AttributeProto),
) -> AttributeProto {
    let mut a = AttributeProto {
        name: s(name),
        r#type: Some(ty as i32),
        ..Default::default()
    };
    fill(&mut a);
    a
}

fn small_graph(name: &str) -> GraphProto {
    GraphProto {
        name: s(name),
        input: vec![vi("a", Some(tensor_type(1, &[])))],
        output: vec![vi("b", Some(tensor_type(1, &[])))],
        node: vec![node(&["b"], "Identity", &["a"], vec![])],
        ..Default::default()
    }
}

/// A model that uses every field the IR has, with awkward values.
fn everything() -> ModelProto {
    use attribute_proto::AttributeType as A;
    use tensor_proto::DataType as D;
    let float_tensor = TensorProto {
        dims: vec![2],
        data_type: Some(D::Float as i32),
        float_data: vec![1.0, f32::from_bits(0x7fc0_0001)],
        name: s("t"),
        ..Default::default()
    };
    let raw_tensor = TensorProto {
        dims: vec![2],
        data_type: Some(D::Int16 as i32),
        raw_data: Some(vec![1, 0, 0xff, 0xff]),
        name: s("raw16"),
        doc_string: s("raw"),
        ..Default::default()
    };
    let odd_raw = TensorProto {
        dims: vec![3],
        data_type: Some(D::Float as i32),
        raw_data: Some(vec![1, 2, 3]),
        name: s("odd"),
        segment: Some(tensor_proto::Segment {
            begin: Some(0),
            end: Some(3),
        }),
        ..Default::default()
    };
    let external = TensorProto {
        dims: vec![4],
        data_type: Some(D::Float as i32),
        name: s("ext"),
        external_data: pairs(&[("location", "w.bin"), ("offset", "0")]),
        data_location: Some(1),
        ..Default::default()
    };
    let f16 = TensorProto {
        dims: vec![3],
        data_type: Some(D::Float16 as i32),
        int32_data: vec![15360, 0x7e01, 70000],
        name: s("half"),
        ..Default::default()
    };
    let strings = TensorProto {
        dims: vec![3],
        data_type: Some(D::String as i32),
        string_data: vec![b"a\"b\\c\nd".to_vec(), vec![0xff, 0, b'x'], Vec::new()],
        name: s("strs"),
        metadata_props: pairs(&[("k", "v")]),
        ..Default::default()
    };
    let undefined = TensorProto {
        dims: vec![1],
        data_type: Some(0),
        int64_data: vec![5],
        name: s("undef"),
        ..Default::default()
    };
    let sparse = SparseTensorProto {
        values: Some(TensorProto {
            dims: vec![2],
            data_type: Some(D::Float as i32),
            float_data: vec![1.0, 2.0],
            ..Default::default()
        }),
        indices: Some(TensorProto {
            dims: vec![2],
            data_type: Some(D::Int64 as i32),
            int64_data: vec![0, 3],
            ..Default::default()
        }),
        dims: vec![4],
    };
    let mut denoted = tensor_type(1, &["N", "3"]);
    denoted.denotation = s("IMAGE");
    if let Some(type_proto::Value::TensorType(t)) = &mut denoted.value {
        t.shape.as_mut().unwrap().dim[0].denotation = s("DATA_BATCH");
    }
    let seq_map = TypeProto {
        value: Some(type_proto::Value::SequenceType(Box::new(
            type_proto::Sequence {
                elem_type: Some(Box::new(TypeProto {
                    value: Some(type_proto::Value::MapType(Box::new(type_proto::Map {
                        key_type: Some(D::String as i32),
                        value_type: Some(Box::new(tensor_type(D::Int64 as i32, &[]))),
                    }))),
                    denotation: None,
                })),
            },
        ))),
        denotation: None,
    };
    let opaque = TypeProto {
        value: Some(type_proto::Value::OpaqueType(type_proto::Opaque {
            domain: s("my-dom"),
            name: s("Thing"),
        })),
        denotation: None,
    };
    let no_shape = TypeProto {
        value: Some(type_proto::Value::SparseTensorType(
            type_proto::SparseTensor {
                elem_type: Some(1),
                shape: None,
            },
        )),
        denotation: None,
    };
    let attributes = vec![
        attr("f", A::Float, |a| a.f = Some(-0.0)),
        attr("i", A::Int, |a| a.i = Some(i64::MIN)),
        attr("s", A::String, |a| a.s = Some(vec![0xfe, b'"'])),
        attr("t", A::Tensor, |a| {
            a.t = Some(Box::new(float_tensor.clone()))
        }),
        attr("tp", A::TypeProto, |a| {
            a.tp = Some(Box::new(denoted.clone()))
        }),
        attr("floats", A::Floats, |a| {
            a.floats = vec![0.1, f32::MAX, f32::MIN_POSITIVE / 2.0]
        }),
        attr("ints", A::Ints, |a| a.ints = vec![]),
        attr("strings", A::Strings, |a| {
            a.strings = vec![b"x".to_vec(), b"".to_vec()]
        }),
        attr("tensors", A::Tensors, |a| {
            a.tensors = vec![raw_tensor.clone(), strings.clone()]
        }),
        attr("sparse", A::SparseTensor, |a| {
            a.sparse_tensor = Some(Box::new(sparse.clone()))
        }),
        attr("sparses", A::SparseTensors, |a| {
            a.sparse_tensors = vec![sparse.clone()]
        }),
        attr("types", A::TypeProtos, |a| {
            a.type_protos = vec![seq_map.clone(), denoted.clone()]
        }),
        attr("my attr", A::Int, |a| {
            a.i = Some(1);
            a.doc_string = s("doc");
            a.f = Some(2.0);
        }),
        AttributeProto {
            name: s("untyped_ref"),
            ref_attr_name: s("outer"),
            ..Default::default()
        },
        AttributeProto {
            name: s("typed_ref"),
            ref_attr_name: s("outer 2"),
            r#type: Some(A::Float as i32),
            ..Default::default()
        },
        AttributeProto {
            name: s("no_type"),
            i: Some(3),
            ..Default::default()
        },
        AttributeProto {
            name: s("weird_type"),
            r#type: Some(99),
            ..Default::default()
        },
        attr("missing", A::Float, |_| {}),
    ];
    let graph_attrs = vec![
        attr("then_branch", A::Graph, |a| {
            a.g = Some(Box::new(small_graph("float")))
        }),
        attr("branches", A::Graphs, |a| {
            a.graphs = vec![small_graph("nan_g"), small_graph("g 2")]
        }),
    ];
    let mut annotated_node = node(&["y", ""], "Op", &["", "x"], attributes);
    annotated_node.domain = s("");
    annotated_node.name = s("");
    annotated_node.overload = s("v-1");
    annotated_node.doc_string = s("node doc");
    annotated_node.metadata_props = vec![StringStringEntryProto {
        key: s("only key"),
        value: None,
    }];
    annotated_node.device_configurations = vec![NodeDeviceConfigurationProto {
        configuration_id: s("cfg"),
        sharding_spec: vec![ShardingSpecProto {
            tensor_name: s("x"),
            device: vec![0, 1],
            index_to_device_group_map: vec![IntIntListEntryProto {
                key: Some(0),
                value: vec![0, 1],
            }],
            sharded_dim: vec![ShardedDimProto {
                axis: Some(0),
                simple_sharding: vec![SimpleShardedDimProto {
                    num_shards: Some(2),
                    dim: Some(simple_sharded_dim_proto::Dim::DimParam("N".into())),
                }],
            }],
        }],
        pipeline_stage: Some(1),
    }];
    let mut if_node = node(&["z"], "If", &["c"], graph_attrs);
    if_node.domain = s("com.x");
    let mut quoted_node = node(&["w"], "my op", &["float"], vec![]);
    quoted_node.domain = s("my-domain");
    let no_op = NodeProto {
        output: vec!["q".into()],
        ..Default::default()
    };
    let graph = GraphProto {
        name: s("main graph"),
        doc_string: s("graph doc"),
        input: vec![
            vi("x", Some(tensor_type(1, &["N", "?"]))),
            ValueInfoProto {
                name: s("c"),
                r#type: Some(tensor_type(9, &[])),
                doc_string: s("cond"),
                ..Default::default()
            },
            vi("d", Some(denoted.clone())),
            vi("untyped", None),
            vi("float", None),
            vi("kindless", Some(TypeProto::default())),
            ValueInfoProto {
                name: None,
                r#type: Some(opaque.clone()),
                ..Default::default()
            },
        ],
        output: vec![
            vi("y", Some(seq_map.clone())),
            vi("z", Some(no_shape.clone())),
        ],
        initializer: vec![
            raw_tensor,
            odd_raw,
            external,
            f16,
            strings,
            undefined,
            TensorProto {
                name: None,
                data_type: Some(1),
                ..Default::default()
            },
        ],
        value_info: vec![vi("w", Some(tensor_type(1, &["a b"])))],
        sparse_initializer: vec![sparse],
        quantization_annotation: vec![TensorAnnotation {
            tensor_name: s("x"),
            quant_parameter_tensor_names: pairs(&[
                ("SCALE_TENSOR", "s"),
                ("ZERO_POINT_TENSOR", "z"),
            ]),
        }],
        metadata_props: pairs(&[("a", "b")]),
        node: vec![annotated_node, if_node, quoted_node, no_op],
    };
    let function = FunctionProto {
        name: s("fun"),
        input: vec!["x".into(), "y".into()],
        output: vec!["z".into()],
        attribute: vec!["alpha".into()],
        attribute_proto: vec![attr("beta", A::Float, |a| a.f = Some(0.5))],
        node: vec![node(&["z"], "Add", &["x", "y"], vec![])],
        doc_string: s("function doc"),
        opset_import: vec![OperatorSetIdProto {
            domain: s(""),
            version: Some(18),
        }],
        domain: s("local"),
        overload: s("o1"),
        value_info: vec![
            vi("x", Some(tensor_type(1, &["N"]))),
            vi("t", Some(tensor_type(1, &[]))),
        ],
        metadata_props: pairs(&[("fk", "fv")]),
    };
    let bare_function = FunctionProto {
        name: s("bare"),
        input: vec!["a".into()],
        output: vec!["b".into()],
        ..Default::default()
    };
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: s(""),
            version: Some(18),
        }],
        producer_name: s("p"),
        producer_version: s("1\0"),
        domain: s("d"),
        model_version: Some(-1),
        doc_string: s("multi\nline \"doc\""),
        graph: Some(graph),
        metadata_props: pairs(&[("author", "me")]),
        training_info: vec![TrainingInfoProto {
            initialization: Some(small_graph("init")),
            algorithm: Some(small_graph("algo")),
            initialization_binding: pairs(&[("a", "b")]),
            update_binding: vec![],
        }],
        functions: vec![function, bare_function],
        configuration: vec![DeviceConfigurationProto {
            name: s("cfg"),
            num_devices: Some(2),
            device: vec!["cpu".into(), "gpu".into()],
        }],
    }
}

#[test]
fn every_construct_round_trips() {
    let text = round_trip(&everything());
    snapshot("everything", &text);
}

/// Runs the reference parser (onnx 1.23.2 in `.venv`) on `text`; `None`
/// when it is not installed ([`reference_python`]).
fn reference_parses(text: &str) -> Option<Result<(), String>> {
    let python = reference_python()?;
    let script = "import sys, onnx.parser\ntry:\n    onnx.parser.parse_model(sys.stdin.read())\nexcept Exception as e:\n    print(e)\n    sys.exit(1)\n";
    let mut child = std::process::Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the reference's python starts");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stdout).into_owned())
    })
}

#[test]
fn reference_grammar_models_print_without_extensions() {
    let model = parse_model(BASIC).unwrap();
    let plain = Printer::new().print(&model);
    let compat = Printer::new().compat(true).print(&model);
    assert_eq!(
        plain.text, compat.text,
        "a model that fits the reference grammar needs no extension"
    );
    assert!(compat.dropped.is_empty());
    if let Some(result) = reference_parses(&compat.text) {
        result.unwrap();
    }
}

#[test]
fn compat_mode_reports_what_it_drops_and_the_reference_accepts_it() {
    let printed = Printer::new().compat(true).print(&everything());
    let report: Vec<String> = printed.dropped.iter().map(ToString::to_string).collect();
    snapshot(
        "everything_compat",
        &format!("{}\n--- dropped\n{}\n", printed.text, report.join("\n")),
    );
    if let Some(result) = reference_parses(&printed.text) {
        result.unwrap_or_else(|e| panic!("{e}\n{}", printed.text));
    }
}

#[test]
fn binary_models_print_as_they_are_decoded() {
    // A node list long enough to be printed on two threads.
    let mut long = parse_model(BASIC).unwrap();
    let graph = long.graph.as_mut().unwrap();
    let nodes = graph.node.clone();
    while graph.node.len() < 3000 {
        graph.node.extend_from_slice(&nodes);
    }
    let no_graph = ModelProto {
        ir_version: Some(10),
        ..ModelProto::default()
    };
    for model in [everything(), parse_model(BASIC).unwrap(), long, no_graph] {
        let bytes = model.encode_to_vec();
        for printer in [
            Printer::new(),
            Printer::new().compat(true),
            Printer::new().threads(false),
        ] {
            let mut expected = Vec::new();
            let dropped = printer.write(&model, &mut expected).unwrap();
            let mut out = Vec::new();
            let lazily = printer.write_binary_model(&bytes, &mut out).unwrap();
            assert_eq!(lazily.unwrap(), dropped);
            assert!(out == expected, "{printer:?}");
            // The same into a string (the Python package's print).
            let in_memory = printer.print_binary_model(&bytes).unwrap();
            assert_eq!(in_memory.dropped, dropped);
            assert!(in_memory.text.as_bytes() == expected, "{printer:?}");
        }
    }
}

/// Tensors of every element type the printer formats as numbers, of
/// `len` elements each, typed and (for floats) raw: pseudo-random values
/// of every magnitude and sign, named `{prefix}{type}_{len}`.
fn number_tensors(prefix: &str, len: usize) -> Vec<TensorProto> {
    use tensor_proto::DataType as D;
    let mut bits = 0x9e37_79b9_u64.wrapping_mul(len as u64 + 1);
    let mut next = move || {
        bits ^= bits << 13;
        bits ^= bits >> 7;
        bits ^= bits << 17;
        bits
    };
    let floats: Vec<f32> = (0..len)
        .map(|i| match i % 3 {
            0 => f32::from_bits(next() as u32 & 0xbf7f_ffff),
            1 => (next() % 20_000) as f32 / 1e4 - 1.0,
            _ => i as f32,
        })
        .collect();
    let tensor = |name: &str, data_type: D| TensorProto {
        name: Some(format!("{prefix}{name}_{len}")),
        dims: vec![len as i64],
        data_type: Some(data_type as i32),
        ..TensorProto::default()
    };
    vec![
        TensorProto {
            float_data: floats.clone(),
            ..tensor("float", D::Float)
        },
        TensorProto {
            raw_data: Some(floats.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ..tensor("raw_float", D::Float)
        },
        TensorProto {
            double_data: (0..len)
                .map(|_| f64::from_bits(next() & !(1 << 62)))
                .collect(),
            ..tensor("double", D::Double)
        },
        TensorProto {
            int64_data: (0..len).map(|_| next() as i64).collect(),
            ..tensor("int64", D::Int64)
        },
        TensorProto {
            int32_data: (0..len).map(|_| next() as i32).collect(),
            ..tensor("int32", D::Int32)
        },
        TensorProto {
            uint64_data: (0..len).map(|_| next()).collect(),
            ..tensor("uint64", D::Uint64)
        },
    ]
}

/// A model of long number lists on either side of the two-thread
/// thresholds (numbers, from 4Ki in a print's shared helper and 32Ki
/// alone, and segments of 16Ki numbers; list items), in initializers, in
/// `Constant`s of the main graph, of an `If` branch and of an `If` branch
/// in that branch.
fn long_lists_model() -> ModelProto {
    use attribute_proto::AttributeType as A;
    let lengths = [1, 9, 4095, 4096, 4097, 8192, 16385, 16386, 32769];
    let constant = |t: TensorProto| NodeProto {
        output: vec![t.name.clone().unwrap()],
        op_type: Some("Constant".into()),
        attribute: vec![AttributeProto {
            name: Some("value".into()),
            r#type: Some(A::Tensor as i32),
            t: Some(Box::new(t)),
            ..AttributeProto::default()
        }],
        ..NodeProto::default()
    };
    let constants = |prefix: &str| -> Vec<NodeProto> {
        lengths
            .iter()
            .flat_map(|&len| number_tensors(prefix, len))
            .map(constant)
            .collect()
    };
    let branch = |name: &str, mut node: Vec<NodeProto>| {
        node.push(NodeProto {
            input: vec!["cond".into()],
            output: vec![format!("{name}_y")],
            op_type: Some("If".into()),
            attribute: vec![AttributeProto {
                name: Some("then_branch".into()),
                r#type: Some(A::Graph as i32),
                g: Some(Box::new(GraphProto {
                    name: Some(name.into()),
                    node: constants(&format!("{name}_")),
                    ..GraphProto::default()
                })),
                ..AttributeProto::default()
            }],
            ..NodeProto::default()
        });
        node
    };
    let inner = branch("inner", Vec::new());
    let outer = branch("outer", inner);
    let mut initializers: Vec<TensorProto> = (0..400)
        .flat_map(|i| number_tensors(&format!("small{i}_"), 1 + i % 9))
        .collect();
    initializers.extend(lengths.iter().flat_map(|&len| number_tensors("", len)));
    let mut nodes = constants("c_");
    nodes.extend(outer);
    ModelProto {
        ir_version: Some(10),
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: nodes,
            initializer: initializers,
            ..GraphProto::default()
        }),
        ..ModelProto::default()
    }
}

#[test]
fn long_lists_print_the_same_on_one_thread_and_two() {
    let model = long_lists_model();
    let text = round_trip(&model);
    let alone = Printer::new().threads(false).print(&model).text;
    assert!(text == alone, "two threads and one print different texts");
    let bytes = model.encode_to_vec();
    for printer in [Printer::new(), Printer::new().threads(false)] {
        let mut written = Vec::new();
        printer.write(&model, &mut written).unwrap();
        assert!(
            written == text.as_bytes(),
            "{printer:?} writes another text"
        );
        let mut streamed = Vec::new();
        printer
            .write_binary_model(&bytes, &mut streamed)
            .unwrap()
            .unwrap();
        assert!(
            streamed == text.as_bytes(),
            "{printer:?} streams another text"
        );
    }
}

/// A writer that takes `room` bytes, then fails every write.
struct FailingAfter {
    written: Vec<u8>,
    room: usize,
}

impl std::io::Write for FailingAfter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = bytes.len().min(self.room - self.written.len());
        if n == 0 && !bytes.is_empty() {
            return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "full"));
        }
        self.written.extend_from_slice(&bytes[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An output that fails part way, in the middle of a number list printed
/// on two threads (or anywhere else): the print ends with the writer's
/// error, having written what was before it, on one thread or two.
#[test]
fn an_output_error_in_a_split_list_ends_the_print_with_it() {
    let model = long_lists_model();
    let text = Printer::new().threads(false).print(&model).text;
    let bytes = model.encode_to_vec();
    // Where item `k` of the list named `name` ends.
    let after_item = |name: &str, k: usize| {
        let list = text.find(name).unwrap();
        let (comma, _) = text[list..].match_indices(',').nth(k).unwrap();
        list + comma
    };
    // In the helper's part of the second segment of 16Ki floats of an
    // initializer, in this thread's part of a main graph's `Constant`, in
    // the helper's part of an inner branch's `Constant`, and at the end.
    let rooms = [
        after_item("float[32769] float_32769", 16384 + 16384 * 3 / 4),
        after_item("c_float_4097", 1000),
        after_item("inner_raw_float_4097", 3000),
        text.len() - 1,
    ];
    for room in rooms {
        for printer in [Printer::new(), Printer::new().threads(false)] {
            let mut out = FailingAfter {
                written: Vec::new(),
                room,
            };
            let error = printer.write(&model, &mut out).unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::StorageFull);
            assert!(out.written == text.as_bytes()[..room], "{room} {printer:?}");
            let mut out = FailingAfter {
                written: Vec::new(),
                room,
            };
            let error = printer.write_binary_model(&bytes, &mut out).unwrap();
            assert_eq!(error.unwrap_err().kind(), std::io::ErrorKind::StorageFull);
            assert!(out.written == text.as_bytes()[..room], "{room} {printer:?}");
        }
    }
}
