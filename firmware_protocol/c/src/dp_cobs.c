/* Consistent Overhead Byte Stuffing (PROTOCOL.md 2.2): the canonical encoding, written run by run to a
 * sink or into a buffer, and decoding in place. */
#include "dealer_proto.h"

void dp_cobs_write(const uint8_t *in, size_t n, dp_write_fn write, void *user)
{
    size_t start = 0;
    for (;;) {
        size_t end = start;
        uint8_t code;
        while (end < n && in[end] != 0 && end - start < 254)
            end++;
        code = (uint8_t)(end - start + 1);
        write(user, &code, 1);
        if (end > start)
            write(user, in + start, end - start);
        if (end == n)
            return;
        start = code == 0xFF ? end : end + 1; /* a full run of 254 implies no zero after it */
    }
}

typedef struct {
    uint8_t *out;
    size_t cap, at;
    int full;
} sink;

static void to_buffer(void *user, const uint8_t *bytes, size_t n)
{
    sink *s = (sink *)user;
    size_t i;
    for (i = 0; i < n; i++) {
        if (s->at >= s->cap) {
            s->full = 1;
            return;
        }
        s->out[s->at++] = bytes[i];
    }
}

size_t dp_cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    sink s;
    s.out = out;
    s.cap = cap;
    s.at = 0;
    s.full = 0;
    dp_cobs_write(in, n, to_buffer, &s);
    return s.full ? 0 : s.at;
}

int dp_cobs_decode(uint8_t *buf, size_t n)
{
    size_t i = 0, o = 0;
    while (i < n) {
        uint8_t code = buf[i];
        size_t k;
        if (code == 0 || i + code > n)
            return -1; /* a zero code, or a run past the end */
        for (k = 1; k < code; k++)
            buf[o++] = buf[i + k]; /* o <= i: never overtakes what is still to read */
        i += code;
        if (code != 0xFF && i < n)
            buf[o++] = 0;
    }
    return (int)o;
}
