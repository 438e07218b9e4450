#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wrappers.h"

namespace jepa {

Napi::Function Buffer::define(Napi::Env env) {
  return DefineClass(env, "Buffer",
                     {
                         InstanceAccessor<&Buffer::size>("size"),
                         InstanceAccessor<&Buffer::name>("name"),
                         InstanceAccessor<&Buffer::isHost>("isHost"),
                         InstanceMethod<&Buffer::clear>("clear"),
                         InstanceMethod<&Buffer::dispose>("dispose"),
                     });
}

Napi::Object Buffer::wrap(Napi::Env env, std::shared_ptr<BufferRes> res) {
  auto* holder = new std::shared_ptr<BufferRes>(std::move(res));
  return addonData(env).bufferCtor.New({Napi::External<std::shared_ptr<BufferRes>>::New(
      env, holder, [](Napi::Env, std::shared_ptr<BufferRes>* p) { delete p; })});
}

Buffer::Buffer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Buffer>(info) {
  if (info.Length() != 1 || !info[0].IsExternal())
    fail(info.Env(), "BAD_ARGUMENT", "buffers come from Backend.allocBuffer, Context.allocate or Mapping.toBuffer");
  // taken, not copied: the External would otherwise keep the buffer alive until a GC collects it
  res_ = std::move(*info[0].As<Napi::External<std::shared_ptr<BufferRes>>>().Data());
}

std::shared_ptr<BufferRes> Buffer::res(Napi::Env env) const {
  if (!res_) fail(env, "DISPOSED", "the buffer was disposed");
  return res_;
}

Napi::Value Buffer::size(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(ggml_backend_buffer_get_size(res(info.Env())->buffer)));
}

Napi::Value Buffer::name(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), ggml_backend_buffer_name(res(info.Env())->buffer));
}

Napi::Value Buffer::isHost(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), ggml_backend_buffer_is_host(res(info.Env())->buffer));
}

void Buffer::clear(const Napi::CallbackInfo& info) {
  int64_t v = info.Length() > 0 ? argInt(info, 0, "value") : 0;
  if (v < 0 || v > 255) fail(info.Env(), "BAD_ARGUMENT", "clear value must be a byte");
  ggml_backend_buffer_clear(res(info.Env())->buffer, static_cast<uint8_t>(v));
}

void Buffer::dispose(const Napi::CallbackInfo&) { res_.reset(); }

Napi::Function Mapping::define(Napi::Env env) {
  return DefineClass(env, "Mapping",
                     {
                         InstanceAccessor<&Mapping::length>("length"),
                         InstanceAccessor<&Mapping::path>("path"),
                         InstanceMethod<&Mapping::toBuffer>("toBuffer"),
                         InstanceMethod<&Mapping::read>("read"),
                         InstanceMethod<&Mapping::release>("release"),
                         InstanceMethod<&Mapping::dispose>("dispose"),
                     });
}

// new Mapping(path): the whole file mapped copy-on-write (weights are never written).
Mapping::Mapping(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Mapping>(info) {
  Napi::Env env = info.Env();
  std::string path = argString(info, 0, "path");
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(env, "IO", "cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size <= 0) {
    close(fd);
    fail(env, "IO", "cannot map " + path + ": empty or unreadable file");
  }
  void* addr = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  int err = errno;
  close(fd);
  if (addr == MAP_FAILED) fail(env, "IO", "mmap of " + path + " failed: " + std::strerror(err));
  auto res = std::make_shared<MappingRes>();
  res->addr = addr;
  res->length = static_cast<size_t>(st.st_size);
  res->path = path;
  res_ = std::move(res);
}

std::shared_ptr<MappingRes> Mapping::res(Napi::Env env) const {
  if (!res_) fail(env, "DISPOSED", "the mapping was disposed");
  return res_;
}

Napi::Value Mapping::length(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(res(info.Env())->length));
}

Napi::Value Mapping::path(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), res(info.Env())->path); }

static void checkRange(Napi::Env env, const MappingRes& m, int64_t offset, int64_t length) {
  if (offset < 0 || length < 1 || static_cast<uint64_t>(offset) > m.length ||
      static_cast<uint64_t>(length) > m.length - static_cast<uint64_t>(offset))
    fail(env, "OUT_OF_RANGE", "bytes [" + std::to_string(offset) + ", +" + std::to_string(length) + ") are outside " +
                                  m.path + " (" + std::to_string(m.length) + " bytes)");
}

// release(offset, length): drops the resident pages wholly inside the range (MADV_DONTNEED). The
// bytes stay readable: a later access reads them from the file again.
void Mapping::release(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto m = res(env);
  int64_t offset = argInt(info, 0, "offset");
  int64_t length = argInt(info, 1, "length");
  checkRange(env, *m, offset, length);
  const int64_t page = sysconf(_SC_PAGESIZE);
  const int64_t first = (offset + page - 1) / page * page;
  const int64_t end = (offset + length) / page * page;
  if (end > first) madvise(static_cast<char*>(m->addr) + first, static_cast<size_t>(end - first), MADV_DONTNEED);
}

// toBuffer(offset, length): a CPU buffer over the mapped bytes, zero-copy.
Napi::Value Mapping::toBuffer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto m = res(env);
  int64_t offset = argInt(info, 0, "offset");
  int64_t length = argInt(info, 1, "length");
  checkRange(env, *m, offset, length);
  auto buf = std::make_shared<BufferRes>();
  buf->buffer = ggml_backend_cpu_buffer_from_ptr(static_cast<char*>(m->addr) + offset, static_cast<size_t>(length));
  if (!buf->buffer) fail(env, "OUT_OF_MEMORY", "could not wrap the mapping in a CPU buffer");
  buf->mapping = m;
  return Buffer::wrap(env, std::move(buf));
}

// read(offset, length) -> Uint8Array copy of the bytes (headers, checks; not for weights).
Napi::Value Mapping::read(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto m = res(env);
  int64_t offset = argInt(info, 0, "offset");
  int64_t length = argInt(info, 1, "length");
  checkRange(env, *m, offset, length);
  Napi::Uint8Array out = Napi::Uint8Array::New(env, static_cast<size_t>(length));
  std::memcpy(out.Data(), static_cast<char*>(m->addr) + offset, static_cast<size_t>(length));
  return out;
}

void Mapping::dispose(const Napi::CallbackInfo&) { res_.reset(); }

}  // namespace jepa
