/* CRC-16/CCITT-FALSE (PROTOCOL.md 2.3) and the packed deal's hash and seats (7.2, 7.3). */
#include "dealer_proto.h"

uint16_t dp_crc16(const uint8_t *data, size_t n)
{
    uint16_t crc = 0xFFFFu;
    size_t i;
    for (i = 0; i < n; i++) {
        uint8_t bit;
        crc ^= (uint16_t)((uint16_t)data[i] << 8);
        for (bit = 0; bit < 8; bit++)
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
    return crc;
}

uint8_t dp_deal_hash(const uint8_t deal[13])
{
    return (uint8_t)(dp_crc16(deal, 13) & 0xFFu);
}

uint8_t dp_deal_seat(const uint8_t deal[13], uint8_t card)
{
    return (uint8_t)((deal[card >> 2] >> (6 - 2 * (card & 3))) & 3u);
}
