/* The streaming frame decoder (PROTOCOL.md 2.4): collects bytes up to each 0x00, undoes COBS in place,
 * checks length and CRC, and is back in step at the next 0x00 after any damage. */
#include "dealer_proto.h"

void dp_decoder_init(dp_decoder *d)
{
    d->n = 0;
    d->skipping = 0;
}

dp_rx_result dp_decoder_push(dp_decoder *d, uint8_t byte, dp_frame *frame)
{
    uint8_t n;
    int len;
    if (byte != 0) {
        if (d->skipping)
            return DP_RX_NOTHING;
        if (d->n < DP_MAX_ENCODED) {
            d->buf[d->n++] = byte;
            return DP_RX_NOTHING;
        }
        d->n = 0;
        d->skipping = 1;
        frame->wire_len = DP_MAX_WIRE;
        return DP_RX_OVERSIZE; /* reported once, as soon as it is known */
    }
    n = d->n;
    d->n = 0;
    if (d->skipping) {
        d->skipping = 0;
        return DP_RX_NOTHING; /* the end of an oversize chunk, already reported */
    }
    if (n == 0)
        return DP_RX_NOTHING; /* idle fill */
    frame->wire_len = n;
    len = dp_cobs_decode(d->buf, n);
    if (len < 0)
        return DP_RX_BAD_COBS;
    if (len < 4)
        return DP_RX_BAD_SHORT;
    if (dp_crc16(d->buf, (size_t)len) != 0)
        return DP_RX_BAD_CRC; /* the CRC of a whole intact body is 0 (2.3) */
    frame->type = d->buf[0];
    frame->seq = d->buf[1];
    frame->payload = d->buf + 2;
    frame->len = (uint8_t)(len - 4);
    frame->crc = (uint16_t)((d->buf[len - 2] << 8) | d->buf[len - 1]);
    return DP_RX_FRAME;
}
