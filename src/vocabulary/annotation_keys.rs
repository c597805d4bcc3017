//! The annotation keys: one per proto field, named as the field. Two
//! tables, each a macro that calls back with every message and its keys,
//! so that the printer (`printer/annotation_values.rs`) and the parser
//! (`parser/annotation.rs`) derive their sides from the same list.

/// Lists every nested message that annotations spell out field by field,
/// with the key of each field; `$m` is called once per message as
/// `$m!(Type, "what it is", { "key" => field, ... })`.
macro_rules! message_table {
    ($m:ident) => {
        $m!(crate::proto::tensor_proto::Segment, "tensor segment", { "begin" => begin, "end" => end });
        $m!(crate::proto::StringStringEntryProto, "string entry", { "key" => key, "value" => value });
        $m!(crate::proto::OperatorSetIdProto, "opset import", { "domain" => domain, "version" => version });
        $m!(crate::proto::TensorAnnotation, "tensor annotation", {
            "tensor_name" => tensor_name,
            "quant_parameter_tensor_names" => quant_parameter_tensor_names,
        });
        $m!(crate::proto::TrainingInfoProto, "training info", {
            "initialization" => initialization,
            "algorithm" => algorithm,
            "initialization_binding" => initialization_binding,
            "update_binding" => update_binding,
        });
        $m!(crate::proto::DeviceConfigurationProto, "device configuration", {
            "name" => name,
            "num_devices" => num_devices,
            "device" => device,
        });
        $m!(crate::proto::NodeDeviceConfigurationProto, "node device configuration", {
            "configuration_id" => configuration_id,
            "sharding_spec" => sharding_spec,
            "pipeline_stage" => pipeline_stage,
        });
        $m!(crate::proto::ShardingSpecProto, "sharding spec", {
            "tensor_name" => tensor_name,
            "device" => device,
            "index_to_device_group_map" => index_to_device_group_map,
            "sharded_dim" => sharded_dim,
        });
        $m!(crate::proto::IntIntListEntryProto, "int list entry", { "key" => key, "value" => value });
        $m!(crate::proto::ShardedDimProto, "sharded dim", { "axis" => axis, "simple_sharding" => simple_sharding });
        $m!(crate::proto::type_proto::Tensor, "tensor type", { "elem_type" => elem_type, "shape" => shape });
        $m!(crate::proto::type_proto::Sequence, "sequence type", { "elem_type" => elem_type });
        $m!(crate::proto::type_proto::Map, "map type", { "key_type" => key_type, "value_type" => value_type });
        $m!(crate::proto::type_proto::Optional, "optional type", { "elem_type" => elem_type });
        $m!(crate::proto::type_proto::SparseTensor, "sparse tensor type", {
            "elem_type" => elem_type,
            "shape" => shape,
        });
        $m!(crate::proto::type_proto::Opaque, "opaque type", { "domain" => domain, "name" => name });
        $m!(crate::proto::TensorShapeProto, "shape", { "dim" => dim });
    };
}
pub(crate) use message_table;

/// The keys of the constructs that have an annotation of their own (the
/// printer writes these fields one by one; the parser reads any of them).
macro_rules! construct_table {
    ($m:ident) => {
        $m!(crate::proto::ModelProto, "model", {
            "ir_version" => ir_version,
            "opset_import" => opset_import,
            "producer_name" => producer_name,
            "producer_version" => producer_version,
            "domain" => domain,
            "model_version" => model_version,
            "doc_string" => doc_string,
            "graph" => graph,
            "metadata_props" => metadata_props,
            "training_info" => training_info,
            "functions" => functions,
            "configuration" => configuration,
        });
        $m!(crate::proto::FunctionProto, "function", {
            "name" => name,
            "input" => input,
            "output" => output,
            "attribute" => attribute,
            "attribute_proto" => attribute_proto,
            "node" => node,
            "doc_string" => doc_string,
            "opset_import" => opset_import,
            "domain" => domain,
            "overload" => overload,
            "value_info" => value_info,
            "metadata_props" => metadata_props,
        });
        $m!(crate::proto::GraphProto, "graph", {
            "node" => node,
            "name" => name,
            "initializer" => initializer,
            "sparse_initializer" => sparse_initializer,
            "doc_string" => doc_string,
            "input" => input,
            "output" => output,
            "value_info" => value_info,
            "quantization_annotation" => quantization_annotation,
            "metadata_props" => metadata_props,
        });
        $m!(crate::proto::NodeProto, "node", {
            "input" => input,
            "output" => output,
            "name" => name,
            "op_type" => op_type,
            "domain" => domain,
            "overload" => overload,
            "attribute" => attribute,
            "doc_string" => doc_string,
            "metadata_props" => metadata_props,
            "device_configurations" => device_configurations,
        });
        $m!(crate::proto::ValueInfoProto, "value info", {
            "name" => name,
            "type" => r#type,
            "doc_string" => doc_string,
            "metadata_props" => metadata_props,
        });
        $m!(crate::proto::AttributeProto, "attribute", {
            "name" => name,
            "ref_attr_name" => ref_attr_name,
            "doc_string" => doc_string,
            "type" => r#type,
            "f" => f,
            "i" => i,
            "s" => s,
            "t" => t,
            "g" => g,
            "sparse_tensor" => sparse_tensor,
            "tp" => tp,
            "floats" => floats,
            "ints" => ints,
            "strings" => strings,
            "tensors" => tensors,
            "graphs" => graphs,
            "sparse_tensors" => sparse_tensors,
            "type_protos" => type_protos,
        });
        $m!(crate::proto::TensorProto, "tensor", {
            "dims" => dims,
            "data_type" => data_type,
            "segment" => segment,
            "float_data" => float_data,
            "int32_data" => int32_data,
            "string_data" => string_data,
            "int64_data" => int64_data,
            "name" => name,
            "doc_string" => doc_string,
            "raw_data" => raw_data,
            "external_data" => external_data,
            "data_location" => data_location,
            "double_data" => double_data,
            "uint64_data" => uint64_data,
            "metadata_props" => metadata_props,
        });
        $m!(crate::proto::SparseTensorProto, "sparse tensor", {
            "values" => values,
            "indices" => indices,
            "dims" => dims,
        });
    };
}
pub(crate) use construct_table;
