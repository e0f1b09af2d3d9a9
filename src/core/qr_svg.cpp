#include "core/qr_svg.hpp"

#include <memory>
#include <stdexcept>

#include <qrencode.h>

#include "core/wipe.hpp"

namespace authd {
namespace {

constexpr int kQuietZone = 4;  // modules of white around the symbol (ISO/IEC 18004)

struct QrFree {
  void operator()(QRcode* code) const { QRcode_free(code); }
};

}  // namespace

std::string qr_svg(std::string_view text) {
  // libqrencode wants a NUL-terminated string.
  std::string input(text);
  WipeOnExit wipe_input(input);  // the otpauth URI holds the TOTP secret
  std::unique_ptr<QRcode, QrFree> code(QRcode_encodeString8bit(input.c_str(), 0, QR_ECLEVEL_M));
  if (!code) throw std::runtime_error("the text does not fit a QR code");
  const int width = code->width;
  const int size = width + 2 * kQuietZone;
  std::string view = std::to_string(size);
  std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + view + " " + view +
      "\" width=\"" + std::to_string(size * 4) + "\" height=\"" + std::to_string(size * 4) +
      "\" shape-rendering=\"crispEdges\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
      "<path fill=\"#000\" d=\"";
  // Each data byte's lowest bit says whether its module is dark.
  for (int y = 0; y < width; ++y) {
    for (int x = 0; x < width; ++x) {
      if ((code->data[y * width + x] & 1U) == 0) continue;
      svg += 'M';
      svg += std::to_string(x + kQuietZone);
      svg += ' ';
      svg += std::to_string(y + kQuietZone);
      svg += "h1v1h-1z";
    }
  }
  svg += "\"/></svg>";
  return svg;
}

}  // namespace authd
