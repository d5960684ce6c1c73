// ascemu/list_tensor.h — ListTensorDesc / TensorDesc: the GM-resident list of tensors that ops with a dynamic
// number of inputs (AddN, Concat, ...) receive as one GM_ADDR (Ascend C API reference "ListTensorDesc").
// The layout, in 64-bit words: [0] byte offset of the pointer array; then per tensor (dim | index << 32) and
// dim shape words; then one data pointer per tensor.  A list of pointers only has dim 0, the count in the high
// half of word 1 and 0xffffffff in word 2 (pointer array at byte 24).  Every word is read through gm_check, so a
// list that lies outside its GM buffer, or a malformed one, is reported at the kernel's line.
#pragma once

#include "ascemu/tensor.h"

namespace ascemu {

// One 64-bit word of a list in GM, bounds-checked; 0 when it is not (wholly) in a GM buffer.
inline uint64_t list_word(const uint64_t* p, const SL& loc, const char* api) {
    GmAccess a = gm_check(p, 8, false, 8, loc, api);
    gm_uninit_check(a, loc, api);
    uint64_t w = 0;
    if (a.ok == 8) std::memcpy(&w, p, 8);
    return w;
}

ASCEMU_DECL void list_fault(const SL& loc, const char* api, const std::string& why);

}  // namespace ascemu

namespace AscendC {

class ListTensorDesc;

template <class T>
class TensorDesc {
  public:
    TensorDesc() = default;
    void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() { return dim_; }
    uint64_t GetIndex() { return index_; }
    uint64_t GetShape(uint32_t offset, const ascemu::SL loc = ascemu::SL::current()) {
        ascemu::api_enter("TensorDesc::GetShape", loc);
        if (offset >= dim_ || !shape_) {
            ascemu::list_fault(loc, "TensorDesc::GetShape",
                               ascemu::strf("dimension %u of a %u-dimensional tensor", offset, dim_));
            return 0;
        }
        return shape_[offset];
    }
    __gm__ T* GetDataPtr() { return ptr_; }
    GlobalTensor<T> GetDataObj() {
        uint64_t elems = 1;
        for (uint32_t i = 0; i < dim_ && shape_; ++i) elems *= shape_[i];
        GlobalTensor<T> g;
        g.SetGlobalBuffer(ptr_, elems);  // the shape's element count, so reads past it are GM_LOGICAL_OOB
        return g;
    }

  private:
    friend class ListTensorDesc;
    uint32_t dim_ = 0, index_ = 0;
    uint64_t* shape_ = nullptr;
    __gm__ T* ptr_ = nullptr;
};

class ListTensorDesc {
  public:
    ListTensorDesc() = default;
    ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff,
                   const ascemu::SL loc = ascemu::SL::current()) {
        Init(data, length, shapeSize, loc);
    }

    void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff,
              const ascemu::SL loc = ascemu::SL::current()) {
        constexpr const char* api = "ListTensorDesc::Init";
        ascemu::api_enter(api, loc);
        *this = ListTensorDesc();
        const auto* head = static_cast<const uint64_t*>(data);
        const uint64_t ptrOffset = ascemu::list_word(head, loc, api);
        const uint64_t first = ascemu::list_word(head + 1, loc, api);
        const uint32_t dim = (uint32_t)first, headCount = (uint32_t)(first >> 32);
        const uint32_t stride = dim == 0 ? 2 : 1 + dim;  // words per descriptor
        if (ptrOffset % 8 != 0 || ptrOffset < 8 * (1 + stride)) {
            ascemu::list_fault(loc, api, ascemu::strf("the pointer-array offset %llu in word 0 is not a multiple of 8 "
                                                      "past one descriptor: not a ListTensorDesc layout",
                                                      (unsigned long long)ptrOffset));
            return;
        }
        const uint64_t* ptrs = head + ptrOffset / 8;
        // The first descriptor's index is 0, so the count is the last descriptor's index + 1 (as CANN decodes it).
        const uint32_t count =
            headCount != 0 ? headCount : (uint32_t)(ascemu::list_word(ptrs - stride, loc, api) >> 32) + 1;
        const bool consistent = dim != 0 ? count == (ptrOffset - 8) / (8 * stride)
                                         : ptrOffset == 24 && ascemu::list_word(head + 2, loc, api) == 0xffffffffu;
        if (!consistent) {
            ascemu::list_fault(loc, api, ascemu::strf("%u tensors of dim %u do not fit a pointer array at byte %llu: "
                                                      "not a ListTensorDesc layout",
                                                      count, dim, (unsigned long long)ptrOffset));
            return;
        }
        if (length != 0xffffffff && shapeSize != 0xffffffff && (count != shapeSize || length != ptrOffset + 8ull * count)) {
            ascemu::list_fault(loc, api, ascemu::strf("the list holds %u tensors in %llu bytes; the call says %u tensors "
                                                      "in %u bytes",
                                                      count, (unsigned long long)(ptrOffset + 8ull * count), shapeSize,
                                                      length));
            return;
        }
        // The pointer array must lie in the same GM buffer (checked once, here, for all GetDataPtr calls).
        ascemu::GmAccess a = ascemu::gm_check(ptrs, 8ull * count, false, 8, loc, api);
        if (a.ok < 8ull * count) return;
        head_ = head, ptrs_ = ptrs, dim_ = dim, stride_ = stride, count_ = count;
    }

    template <class T>
    void GetDesc(TensorDesc<T>& desc, uint32_t index, const ascemu::SL loc = ascemu::SL::current()) {
        constexpr const char* api = "ListTensorDesc::GetDesc";
        ascemu::api_enter(api, loc);
        if (!in_range(index, loc, api)) return;
        if (dim_ == 0 || !desc.shape_) {
            ascemu::list_fault(loc, api, dim_ == 0 ? "the list holds pointers only (dim 0): no shapes to get"
                                                   : "TensorDesc::SetShapeAddr was not called before GetDesc");
            return;
        }
        desc.dim_ = dim_;
        desc.index_ = index;
        desc.ptr_ = reinterpret_cast<__gm__ T*>(ascemu::list_word(ptrs_ + index, loc, api));
        const uint64_t* shape = head_ + 1 + (size_t)index * stride_ + 1;
        for (uint32_t i = 0; i < dim_; ++i) desc.shape_[i] = ascemu::list_word(shape + i, loc, api);
    }

    template <class T>
    __gm__ T* GetDataPtr(uint32_t index, const ascemu::SL loc = ascemu::SL::current()) {
        constexpr const char* api = "ListTensorDesc::GetDataPtr";
        ascemu::api_enter(api, loc);
        if (!in_range(index, loc, api)) return nullptr;
        return reinterpret_cast<__gm__ T*>(ascemu::list_word(ptrs_ + index, loc, api));
    }

    uint32_t GetSize() { return count_; }

  private:
    bool in_range(uint32_t index, const ascemu::SL& loc, const char* api) {
        if (index < count_) return true;
        ascemu::list_fault(loc, api, head_ ? ascemu::strf("index %u of a list of %u tensors", index, count_)
                                           : std::string("the list was never (successfully) initialised"));
        return false;
    }
    const uint64_t* head_ = nullptr;
    const uint64_t* ptrs_ = nullptr;
    uint32_t dim_ = 0, stride_ = 0, count_ = 0;
};

}  // namespace AscendC

#if ASCEMU_WITH_IMPL
#include "ascemu/impl/list_tensor_impl.h"
#endif
