// A QR code as an SVG document (interface.md 12.1's qrSvg): the symbol from
// libqrencode (Debian's), drawn by authd as one path of unit squares.
#pragma once

#include <string>
#include <string_view>

namespace authd {

// The QR code of `text` (error correction level M, byte mode), with the
// standard quiet zone of 4 modules. Throws std::runtime_error when the text
// does not fit a QR code (over about 2,300 bytes at level M).
std::string qr_svg(std::string_view text);

}  // namespace authd
