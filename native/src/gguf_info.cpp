// ggml's own GGUF reader, exposed for interoperability checks against @jepa/gguf.
#include "gguf.h"
#include "wrappers.h"

namespace jepa {

static Napi::Value scalar(Napi::Env env, const gguf_context* g, int64_t k, gguf_type type) {
  switch (type) {
    case GGUF_TYPE_UINT8: return Napi::Number::New(env, gguf_get_val_u8(g, k));
    case GGUF_TYPE_INT8: return Napi::Number::New(env, gguf_get_val_i8(g, k));
    case GGUF_TYPE_UINT16: return Napi::Number::New(env, gguf_get_val_u16(g, k));
    case GGUF_TYPE_INT16: return Napi::Number::New(env, gguf_get_val_i16(g, k));
    case GGUF_TYPE_UINT32: return Napi::Number::New(env, gguf_get_val_u32(g, k));
    case GGUF_TYPE_INT32: return Napi::Number::New(env, gguf_get_val_i32(g, k));
    case GGUF_TYPE_FLOAT32: return Napi::Number::New(env, gguf_get_val_f32(g, k));
    case GGUF_TYPE_UINT64: return Napi::BigInt::New(env, static_cast<uint64_t>(gguf_get_val_u64(g, k)));
    case GGUF_TYPE_INT64: return Napi::BigInt::New(env, static_cast<int64_t>(gguf_get_val_i64(g, k)));
    case GGUF_TYPE_FLOAT64: return Napi::Number::New(env, gguf_get_val_f64(g, k));
    case GGUF_TYPE_BOOL: return Napi::Boolean::New(env, gguf_get_val_bool(g, k));
    case GGUF_TYPE_STRING: return Napi::String::New(env, gguf_get_val_str(g, k));
    default: return env.Undefined();
  }
}

static Napi::Value arrayValue(Napi::Env env, const gguf_context* g, int64_t k) {
  gguf_type at = gguf_get_arr_type(g, k);
  size_t n = gguf_get_arr_n(g, k);
  Napi::Array out = Napi::Array::New(env, n);
  if (at == GGUF_TYPE_STRING) {
    for (size_t i = 0; i < n; ++i) out.Set(static_cast<uint32_t>(i), gguf_get_arr_str(g, k, i));
    return out;
  }
  if (at == GGUF_TYPE_ARRAY) return Napi::Number::New(env, static_cast<double>(n));  // nested: count only
  const uint8_t* data = static_cast<const uint8_t*>(gguf_get_arr_data(g, k));
  for (size_t i = 0; i < n; ++i) {
    Napi::Value v;
    switch (at) {
      case GGUF_TYPE_UINT8: v = Napi::Number::New(env, reinterpret_cast<const uint8_t*>(data)[i]); break;
      case GGUF_TYPE_INT8: v = Napi::Number::New(env, reinterpret_cast<const int8_t*>(data)[i]); break;
      case GGUF_TYPE_UINT16: v = Napi::Number::New(env, reinterpret_cast<const uint16_t*>(data)[i]); break;
      case GGUF_TYPE_INT16: v = Napi::Number::New(env, reinterpret_cast<const int16_t*>(data)[i]); break;
      case GGUF_TYPE_UINT32: v = Napi::Number::New(env, reinterpret_cast<const uint32_t*>(data)[i]); break;
      case GGUF_TYPE_INT32: v = Napi::Number::New(env, reinterpret_cast<const int32_t*>(data)[i]); break;
      case GGUF_TYPE_FLOAT32: v = Napi::Number::New(env, reinterpret_cast<const float*>(data)[i]); break;
      case GGUF_TYPE_UINT64: v = Napi::BigInt::New(env, reinterpret_cast<const uint64_t*>(data)[i]); break;
      case GGUF_TYPE_INT64: v = Napi::BigInt::New(env, reinterpret_cast<const int64_t*>(data)[i]); break;
      case GGUF_TYPE_FLOAT64: v = Napi::Number::New(env, reinterpret_cast<const double*>(data)[i]); break;
      case GGUF_TYPE_BOOL: v = Napi::Boolean::New(env, reinterpret_cast<const int8_t*>(data)[i] != 0); break;
      default: v = env.Undefined();
    }
    out.Set(static_cast<uint32_t>(i), v);
  }
  return out;
}

// ggufInfo(path) -> { version, alignment, dataOffset, kv: {key: {type, value}}, tensors: [...] }
Napi::Value ggufInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path = argString(info, 0, "path");
  gguf_init_params params{true, nullptr};
  gguf_context* g = gguf_init_from_file(path.c_str(), params);
  if (!g) fail(env, "GGUF", "ggml's reader refused " + path);
  Napi::Object out = Napi::Object::New(env);
  out.Set("version", gguf_get_version(g));
  out.Set("alignment", static_cast<double>(gguf_get_alignment(g)));
  out.Set("dataOffset", static_cast<double>(gguf_get_data_offset(g)));
  Napi::Object kv = Napi::Object::New(env);
  for (int64_t k = 0; k < gguf_get_n_kv(g); ++k) {
    gguf_type type = gguf_get_kv_type(g, k);
    Napi::Object entry = Napi::Object::New(env);
    entry.Set("type", gguf_type_name(type));
    if (type == GGUF_TYPE_ARRAY) {
      entry.Set("arrayType", gguf_type_name(gguf_get_arr_type(g, k)));
      entry.Set("value", arrayValue(env, g, k));
    } else {
      entry.Set("value", scalar(env, g, k, type));
    }
    kv.Set(gguf_get_key(g, k), entry);
  }
  out.Set("kv", kv);
  Napi::Array tensors = Napi::Array::New(env);
  for (int64_t t = 0; t < gguf_get_n_tensors(g); ++t) {
    Napi::Object ti = Napi::Object::New(env);
    ti.Set("name", gguf_get_tensor_name(g, t));
    ti.Set("type", static_cast<double>(gguf_get_tensor_type(g, t)));
    ti.Set("offset", static_cast<double>(gguf_get_data_offset(g) + gguf_get_tensor_offset(g, t)));
    ti.Set("nbytes", static_cast<double>(gguf_get_tensor_size(g, t)));
    const int64_t* ne = gguf_get_tensor_ne(g, t);
    Napi::Array shape = Napi::Array::New(env, GGML_MAX_DIMS);
    for (uint32_t d = 0; d < GGML_MAX_DIMS; ++d) shape.Set(d, static_cast<double>(ne[d]));
    ti.Set("ne", shape);
    tensors.Set(static_cast<uint32_t>(t), ti);
  }
  out.Set("tensors", tensors);
  gguf_free(g);
  return out;
}

}  // namespace jepa
