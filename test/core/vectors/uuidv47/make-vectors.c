/* Prints the rows of uuidv47_vectors.inc: UUIDv47 faces computed by the
 * reference implementation's own header (stateless-me/uuidv47, uuidv47.h),
 * which make-vectors.sh compiles this program against. Not part of crid's
 * build: crid's code is C++, and this file exists only to show how the
 * vectors were made.
 *
 * Every row is checked against the reference itself before anything is
 * printed: decode(encode(v7)) must give v7 back, the face must say version
 * 4 with the RFC variant and keep the 74 random bits, and encode(decode(face))
 * must give the face back. The reference's SipHash must also give the SipHash
 * paper's value for the paper's key, which pins down how a 16-byte key maps
 * to the reference's {k0, k1}. Any failure exits with status 1 before a
 * single row is printed, so a vector file can only come from a reference
 * that agrees with itself.
 *
 * All inputs come from a fixed-seed generator: the output is the same on
 * every run and every machine. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uuidv47.h"

#define RANDOM_PER_KEY 20
#define MAX_ROWS 512

/* splitmix64: a small, well-known 64-bit generator; fixed seed below. */
static uint64_t prng_state;

static uint64_t prng_next(void)
{
    uint64_t z = (prng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

#define TS_MAX UINT64_C(0xFFFFFFFFFFFF)

enum random_bits { RANDOM_DRAWN, RANDOM_ZERO, RANDOM_ONES };

/* A UUIDv7: 48-bit big-endian timestamp, version 7, RFC variant, and 74
 * random bits (12 after the version nibble, 62 after the variant bits). */
static uuid128_t make_v7(uint64_t ts48, enum random_bits kind)
{
    uuid128_t u;
    uint64_t hi = 0, lo = 0;
    int i;

    if (kind == RANDOM_DRAWN) {
        hi = prng_next();
        lo = prng_next();
    } else if (kind == RANDOM_ONES) {
        hi = ~UINT64_C(0);
        lo = ~UINT64_C(0);
    }
    for (i = 0; i < 6; i++)
        u.b[i] = (uint8_t)(ts48 >> (8 * (5 - i)));
    u.b[6] = (uint8_t)(0x70 | ((hi >> 8) & 0x0F));
    u.b[7] = (uint8_t)hi;
    u.b[8] = (uint8_t)(0x80 | ((hi >> 16) & 0x3F));
    for (i = 9; i < 16; i++)
        u.b[i] = (uint8_t)(lo >> (8 * (i - 9)));
    return u;
}

/* A timestamp: the full 48-bit range, or milliseconds between 2017 and 2042
 * (what a clock gives today), alternately. */
static uint64_t draw_ts(int realistic)
{
    if (realistic)
        return UINT64_C(1500000000000) + prng_next() % UINT64_C(800000000000);
    return prng_next() & TS_MAX;
}

static void format_uuid(const uuid128_t *u, char out[37])
{
    static const char digits[] = "0123456789abcdef";
    int i, j = 0;

    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[j++] = '-';
        out[j++] = digits[u->b[i] >> 4];
        out[j++] = digits[u->b[i] & 0x0F];
    }
    out[j] = '\0';
}

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    int i;

    for (i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

struct row {
    uuidv47_key_t key;
    uuid128_t v7, face;
    const char *note;
};

static struct row rows[MAX_ROWS];
static int n_rows;
static int failures;

static void fail(const char *what, const struct row *r)
{
    char v7[37];

    format_uuid(&r->v7, v7);
    fprintf(stderr, "make-vectors: %s (k0=0x%016" PRIx64 " k1=0x%016" PRIx64 " v7=%s)\n", what, r->key.k0,
            r->key.k1, v7);
    failures++;
}

/* The round-trip assertion: the reference must undo what it did. */
static void add(uuidv47_key_t key, uuid128_t v7, const char *note)
{
    struct row *r;
    uuid128_t back, again, parsed;
    char text[37];

    if (n_rows == MAX_ROWS) {
        fprintf(stderr, "make-vectors: more than %d rows\n", MAX_ROWS);
        exit(1);
    }
    r = &rows[n_rows++];
    r->key = key;
    r->v7 = v7;
    r->note = note;
    r->face = uuidv47_encode_v4facade(v7, key);
    back = uuidv47_decode_v4facade(r->face, key);
    again = uuidv47_encode_v4facade(back, key);

    if (uuid_version(&v7) != 7 || (v7.b[8] & 0xC0) != 0x80)
        fail("input is not a UUIDv7 with the RFC variant", r);
    if (memcmp(back.b, v7.b, 16) != 0)
        fail("decode(encode(v7)) != v7", r);
    if (memcmp(again.b, r->face.b, 16) != 0)
        fail("encode(decode(face)) != face", r);
    if (uuid_version(&r->face) != 4 || (r->face.b[8] & 0xC0) != 0x80)
        fail("face is not version 4 with the RFC variant", r);
    if ((r->face.b[6] & 0x0F) != (v7.b[6] & 0x0F) || r->face.b[7] != v7.b[7] ||
        (r->face.b[8] & 0x3F) != (v7.b[8] & 0x3F) || memcmp(r->face.b + 9, v7.b + 9, 7) != 0)
        fail("face changed the random bits", r);
    /* The reference's parser reads what this program prints. */
    format_uuid(&r->face, text);
    if (!uuid_parse(text, &parsed) || memcmp(parsed.b, r->face.b, 16) != 0)
        fail("the reference does not parse the face as printed", r);
}

/* The reference's siphash24(in, inlen, k0, k1) against the SipHash paper
 * (Aumasson and Bernstein, appendix A): key bytes 00 01 .. 0f, message
 * bytes 00 01 .. 0e, hash a129ca6149be45e5. k0 and k1 are the key's bytes
 * 0-7 and 8-15 read little-endian. */
static void check_key_mapping(void)
{
    uint8_t key_bytes[16], msg[15];
    int i;

    for (i = 0; i < 16; i++)
        key_bytes[i] = (uint8_t)i;
    for (i = 0; i < 15; i++)
        msg[i] = (uint8_t)i;
    if (load_le64(key_bytes) != UINT64_C(0x0706050403020100) ||
        load_le64(key_bytes + 8) != UINT64_C(0x0f0e0d0c0b0a0908) ||
        siphash24(msg, sizeof msg, load_le64(key_bytes), load_le64(key_bytes + 8)) != UINT64_C(0xa129ca6149be45e5)) {
        fprintf(stderr, "make-vectors: the reference's SipHash does not give the paper's value for key 00..0f\n");
        failures++;
    }
}

static void add_key(uuidv47_key_t key, const char *first_note)
{
    int i;

    add(key, make_v7(0, RANDOM_ZERO), first_note ? first_note : "timestamp 0, random bits 0");
    add(key, make_v7(TS_MAX, RANDOM_ONES), "timestamp 2^48-1, random bits all 1");
    add(key, make_v7(0, RANDOM_DRAWN), "timestamp 0");
    add(key, make_v7(TS_MAX, RANDOM_DRAWN), "timestamp 2^48-1");
    add(key, make_v7(draw_ts(1), RANDOM_ZERO), "random bits 0");
    add(key, make_v7(draw_ts(1), RANDOM_ONES), "random bits all 1");
    for (i = 0; i < RANDOM_PER_KEY; i++)
        add(key, make_v7(draw_ts(i % 2), RANDOM_DRAWN), NULL);
}

int main(void)
{
    static const uuidv47_key_t fixed[] = {
        {UINT64_C(0x0123456789abcdef), UINT64_C(0xfedcba9876543210)}, /* the README's quick start */
        {UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908)}, /* the SipHash paper's */
        {0, 0},
    };
    static const char *fixed_names[] = {"the README's quick-start key", "the SipHash paper's key (bytes 00..0f)",
                                        "the all-zero key"};
    const char *key_names[8];
    uuid128_t quick_start, zero;
    int i, k, n_keys = 0, first_of_key[9];

    prng_state = UINT64_C(0x637269642d763437); /* "crid-v47" */
    check_key_mapping();

    /* The README's quick-start UUID, parsed by the reference as it does
     * there, is the first row of every key (timestamp 0, random bits 0). */
    zero = make_v7(0, RANDOM_ZERO);
    if (!uuid_parse("00000000-0000-7000-8000-000000000000", &quick_start) || memcmp(quick_start.b, zero.b, 16) != 0) {
        fprintf(stderr, "make-vectors: the reference does not parse the README's UUID as timestamp 0, random bits 0\n");
        return 1;
    }
    for (k = 0; k < 3; k++) {
        first_of_key[n_keys] = n_rows;
        key_names[n_keys++] = fixed_names[k];
        add_key(fixed[k], k == 0 ? "the README's quick start: timestamp 0, random bits 0" : NULL);
    }
    for (k = 0; k < 5; k++) {
        uuidv47_key_t key;
        key.k0 = prng_next();
        key.k1 = prng_next();
        first_of_key[n_keys] = n_rows;
        key_names[n_keys++] = "a key from the fixed-seed generator";
        add_key(key, NULL);
    }
    first_of_key[n_keys] = n_rows;

    if (failures) {
        fprintf(stderr, "make-vectors: %d check(s) failed; no vectors printed\n", failures);
        return 1;
    }
    for (k = 0; k < n_keys; k++) {
        printf("// %s\n", key_names[k]);
        for (i = first_of_key[k]; i < first_of_key[k + 1]; i++) {
            char v7[37], face[37];
            format_uuid(&rows[i].v7, v7);
            format_uuid(&rows[i].face, face);
            printf("{UINT64_C(0x%016" PRIx64 "), UINT64_C(0x%016" PRIx64 "), \"%s\", \"%s\"},", rows[i].key.k0,
                   rows[i].key.k1, v7, face);
            if (rows[i].note)
                printf(" // %s", rows[i].note);
            printf("\n");
        }
    }
    fprintf(stderr, "make-vectors: %d vectors, %d keys, every one round-trips in the reference\n", n_rows, n_keys);
    return 0;
}
