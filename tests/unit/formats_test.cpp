// The formats plugin: the storage table, element codecs, block quantization, the error study and the calculators.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "host/context.hpp"
#include "plugins/formats/block.hpp"
#include "plugins/formats/codec.hpp"
#include "plugins/formats/element.hpp"
#include "plugins/formats/error_study.hpp"
#include "plugins/formats/formats_math.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;
using namespace infracalc::formats;

namespace {
double e2m1(double x) { return decode_code(spec(Elem::e2m1), encode_value(spec(Elem::e2m1), x, true).code).value; }
}  // namespace

TEST_CASE("the storage table keeps the names kv and decode use and derives block bits", "[formats][storage]") {
  for (const char* name : {"fp32", "bf16", "fp16", "fp8", "int8", "int4"}) REQUIRE(find_storage_format(name) != nullptr);
  CHECK(find_storage_format("fp16")->bits_per_value == 16);
  CHECK(find_storage_format("int4")->bits_per_value == 4);
  CHECK(find_storage_format("mxfp4")->bits_per_value == 4.25);
  CHECK(find_storage_format("nvfp4")->bits_per_value == 4.5);
  CHECK(find_storage_format("int4-g128")->bits_per_value == 4.125);
  CHECK(storage_bytes(70e9, *find_storage_format("nvfp4")).value() == 39.375e9);
  CHECK(element_bytes(70e9, *find_storage_format("nvfp4")).value() == 35e9);
  std::set<std::string_view> names;
  for (const auto& f : storage_formats()) {
    CHECK(names.insert(f.name).second);
    CHECK(f.bits_per_value == block_bits_per_value(f.element_bits, f.scale_bits, f.block));
    CHECK(find_element(f.element) != nullptr);
    if (f.block > 0) CHECK(find_element(f.scale) != nullptr);
  }
}

TEST_CASE("element ranges match the standards", "[formats][element]") {
  CHECK(max_finite(spec(Elem::e4m3)) == 448);
  CHECK(max_finite(spec(Elem::e5m2)) == 57344);
  CHECK(max_finite(spec(Elem::e3m2)) == 28);
  CHECK(max_finite(spec(Elem::e2m3)) == 7.5);
  CHECK(max_finite(spec(Elem::e2m1)) == 6);
  CHECK(max_finite(spec(Elem::fp16)) == 65504);
  CHECK(max_finite(spec(Elem::bf16)) == Approx(3.38953139e38));
  CHECK(min_subnormal(spec(Elem::e4m3)) == std::ldexp(1.0, -9));
  CHECK(min_subnormal(spec(Elem::e5m2)) == std::ldexp(1.0, -16));
  CHECK(min_normal(spec(Elem::e2m1)) == 1.0);
  CHECK(epsilon(spec(Elem::bf16)) == std::ldexp(1.0, -7));
  CHECK(emax(spec(Elem::e2m1)) == 2);
  CHECK(emax(spec(Elem::e4m3)) == 8);
  CHECK(emax(spec(Elem::e5m2)) == 15);
  CHECK_FALSE(has_inf(spec(Elem::e4m3)));
  CHECK(has_nan(spec(Elem::e4m3)));
  CHECK_FALSE(has_nan(spec(Elem::e2m1)));
  CHECK(decode_code(spec(Elem::e8m0), 127).value == 1.0);
  CHECK(std::isnan(decode_code(spec(Elem::e8m0), 255).value));
}

TEST_CASE("E2M1 decodes and rounds to nearest, ties to even", "[formats][element]") {
  const Decoded d = decode_code(spec(Elem::e2m1), 0b1110);
  CHECK(d.value == -4);
  CHECK(d.exp_field == 3);
  CHECK(d.man_field == 0);
  CHECK(e2m1(2.5) == 2);   // 2 (0100) and 3 (0101): the even code
  CHECK(e2m1(5.0) == 4);   // 4 (0110) and 6 (0111)
  CHECK(e2m1(0.25) == 0);  // 0 and 0.5
  CHECK(e2m1(0.75) == 1);  // 0.5 (0001) and 1 (0010)
  CHECK(e2m1(1e9) == 6);   // saturates
  CHECK(e2m1(-7) == -6);
}

TEST_CASE("FP8 overflow follows the OCP rules", "[formats][element]") {
  const auto& e4 = spec(Elem::e4m3);
  CHECK(encode_value(e4, 464, false).code == 0x7E);
  CHECK(encode_value(e4, 470, false).code == 0x7F);  // NaN: no infinity in E4M3
  CHECK(encode_value(e4, 470, true).code == 0x7E);
  const auto& e5 = spec(Elem::e5m2);
  CHECK(decode_code(e5, encode_value(e5, 61440, false).code).cls == CodeClass::infinity);
  CHECK(decode_code(e5, encode_value(e5, 61439, false).code).value == 57344);
}

TEST_CASE("the fast encoders agree with the exact encoder", "[formats][codec]") {
  std::uint32_t state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 1664525u + 1013904223u;
    const float x = std::ldexp(static_cast<float>(state & 0xFFFFFF) / 16777216.0f, static_cast<int>(state >> 27) - 12) *
                    ((state & 0x1000000u) != 0 ? -1.0f : 1.0f);
    for (Elem e : {Elem::bf16, Elem::fp16, Elem::e4m3, Elem::e5m2, Elem::e3m2, Elem::e2m3, Elem::e2m1, Elem::int8, Elem::int4})
      REQUIRE(encode_fast(e, x, true) == encode_value(spec(e), x, true).code);
  }
}

TEST_CASE("4- and 6-bit packing round-trips", "[formats][codec]") {
  std::vector<std::uint8_t> codes6(37), back6(37), packed6(packed_size(37, 6));
  for (std::size_t i = 0; i < codes6.size(); ++i) codes6[i] = static_cast<std::uint8_t>((i * 7) & 0x3F);
  pack6(codes6, packed6);
  unpack6(packed6, back6);
  CHECK(back6 == codes6);
  std::vector<std::uint8_t> codes4(9), back4(9), packed4(packed_size(9, 4));
  for (std::size_t i = 0; i < codes4.size(); ++i) codes4[i] = static_cast<std::uint8_t>(i & 0xF);
  pack4(codes4, packed4);
  unpack4(packed4, back4);
  CHECK(back4 == codes4);
  CHECK(packed4[0] == 0x10);  // first value in the low nibble
}

TEST_CASE("MX blocks: power-of-two scale, 17 bytes per 32 values, NaN marks the block", "[formats][block]") {
  std::vector<float> x(64, 0.25f);
  x[3] = 5.0f;
  x[40] = std::nanf("");
  const auto q = quantize(x, layout_of(*find_storage_format("mxfp4")));
  CHECK(q.bytes() == 34);
  CHECK(q.scales[0] == 127 + 2 - 2);  // floor(log2 5) - emax(E2M1)
  CHECK(q.scales[1] == 0xFF);
  std::vector<float> back(64);
  dequantize(q, back);
  CHECK(back[3] == 4.0f);  // 5 rounds to the even neighbour 4 (4 and 6 are both one step away)
  CHECK(back[0] == 0.0f);  // 0.25 is halfway between 0 and 0.5: ties to even
  CHECK(std::isnan(back[33]));
}

TEST_CASE("NVFP4 keeps an FP32 tensor scale above E4M3 block scales", "[formats][block]") {
  std::vector<float> x(32);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.1f - 1.5f;
  const auto q = quantize(x, layout_of(*find_storage_format("nvfp4")));
  CHECK(q.bytes() == 16 + 2 + 4);
  CHECK(q.tensor_scale == Approx(1.6f / 2688.0f));
  std::vector<float> back(32);
  dequantize(q, back);
  // At most half the largest E2M1 step (6 - 4) times the block scale, about block amax / 6.
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(std::fabs(back[i] - x[i]) <= 0.27f);
}

TEST_CASE("the synthetic tensor is reproducible and block formats contain outliers", "[formats][error]") {
  TensorRecipe r;
  r.count = 8192;
  r.outliers = 8;
  const auto a = make_tensor(r), b = make_tensor(r);
  CHECK(a.values == b.values);
  r.seed = 2;
  CHECK(make_tensor(r).values != a.values);
  const auto int4 = measure_error(a, layout_of(*find_storage_format("int4")));
  const auto fp4 = measure_error(a, layout_of(*find_storage_format("fp4-e2m1")));
  const auto g32 = measure_error(a, layout_of(*find_storage_format("int4-g32")));
  const auto nv = measure_error(a, layout_of(*find_storage_format("nvfp4")));
  CHECK(fp4.snr_db > int4.snr_db);  // the FP grid keeps more of the bulk near zero
  CHECK(g32.snr_db > int4.snr_db + 10);
  CHECK(nv.snr_db > fp4.snr_db + 10);
  CHECK(int4.zeroed_share > 0.9);  // one 50-sigma outlier sets the step: the bulk rounds to zero
}

TEST_CASE("bits per value with blocks, tensor scales and sparsity", "[formats][math]") {
  BitsLayout l;
  l.element = from_base<Bytes>(0.5);
  l.block = 32;
  l.scale = from_base<Bytes>(1);
  CHECK(bits_cost(l).per_value.value() * 8 == 4.25);
  CHECK(bits_cost(l).block.value() * 8 == 136);
  l.kept = 0.5;
  l.metadata = from_base<Bytes>(0.25);
  CHECK(bits_cost(l).per_value.value() * 8 == Approx(0.5 * (4.25 + 2)));
  CHECK(sparse_speedup(0.5) == 2);
}

TEST_CASE("formats calculators", "[formats][calc]") {
  CHECK(value(run("formats", "info", {{"dtype", "fp8-e4m3"}}), "max_finite") == 448);
  CHECK(value(run("formats", "bits", {{"dtype", "nvfp4"}}), "bits_per_value") * 8 == 4.5);
  CHECK(value(run("formats", "decode", {{"dtype", "fp4-e2m1"}, {"code", "1.11.0"}}), "value") == -4);
  CHECK(value(run("formats", "encode", {{"dtype", "fp8-e5m2"}, {"value", "3.3"}}), "decoded") == 3.5);
  CHECK_THROWS_AS(run("formats", "decode", {{"dtype", "fp8-e4m3"}, {"code", "0x1ff"}}), UserError);
  CHECK_THROWS_AS(run("formats", "encode", {{"dtype", "fp4-e2m1"}, {"value", "1"}, {"values", "1,2"}}), UserError);
  CHECK_THROWS_AS(run("formats", "bits", {{"dtype", "fp16"}, {"scale_format", "fp16"}}), UserError);
  CHECK_THROWS_AS(run("formats", "error", {{"dtypes", "fp32"}}), UserError);
  const Result e = run("formats", "error", {{"size", "256"}, {"outliers", "1"}, {"dtypes", "int4,nvfp4"}});
  REQUIRE(e.tables.size() == 1);
  CHECK(e.tables[0].rows.size() == 2);
}
