/* test_ed25519: the Ed25519 verification variant docs/AUDIT.md settles
 * ("Settled questions"), as libsodium's crypto_sign_verify_detached does
 * it for every minisign signature hexpost checks, against the vectors the
 * Python verifier (contrib/hexpost-audit.py) is held to by
 * tests/e2e/audit_vectors.sh: cofactorless, S < L, the key and R canonical
 * and not of small order. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <sodium.h>

/* The key of seed 00 01 .. 1f and its signature of "hexpost". */
static const char PK[] =
    "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8";
static const char SIG[] =
    "59203e9ff7fa2112ebdd831704b67f982ede212fd8d4f22d569b0b7fecd48a49"
    "14c16f0276b9738a1f7297f20c89114455e93abaaa663e5a1c96682ad804e400";
/* The same with S + L (not canonical). */
static const char SIG_SL[] =
    "59203e9ff7fa2112ebdd831704b67f982ede212fd8d4f22d569b0b7fecd48a49"
    "0195655f901c86e2f50e8f95eb82f05855e93abaaa663e5a1c96682ad804e410";

static void
bin(const char *hex, unsigned char *out, size_t n)
{
	assert_int_equal(sodium_hex2bin(out, n, hex, strlen(hex), NULL, NULL,
	    NULL), 0);
}

static int
verify(const unsigned char *pk, const unsigned char *sig)
{
	return crypto_sign_verify_detached(sig, (const unsigned char *)
	    "hexpost", 7, pk);
}

static void
test_variant(void **state)
{
	unsigned char pk[32], sig[64], ident[32], forged[64], noncanon[32];

	(void)state;
	bin(PK, pk, 32);
	bin(SIG, sig, 64);
	assert_int_equal(verify(pk, sig), 0);
	bin(SIG_SL, sig, 64);
	assert_int_not_equal(verify(pk, sig), 0);	/* S >= L */
	/* The identity as key and R, S = 0: the equation holds for any
	 * message; refused (small order). */
	memset(ident, 0, sizeof ident);
	ident[0] = 1;
	memset(forged, 0, sizeof forged);
	forged[0] = 1;
	assert_int_not_equal(verify(ident, forged), 0);
	/* y = p + 1: the identity, not canonically encoded. */
	bin("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	    noncanon, 32);
	memcpy(forged, noncanon, 32);
	assert_int_not_equal(verify(noncanon, forged), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variant),
	};

	if (sodium_init() < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
