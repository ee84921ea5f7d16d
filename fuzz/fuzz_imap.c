/* fuzz_imap: libFuzzer harness for the IMAP response parser
 * (fetch_imap_parse), fed as the session feeds it: responses one after
 * another from a buffer, each one's pointers checked to stay inside it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fetch_imap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imap_resp r;
	struct hp_error err;
	size_t off = 0;
	long n;

	while (off < size) {
		n = fetch_imap_parse(data + off, size - off, 1 << 16, &r, &err);
		if (n <= 0)
			break;
		if ((size_t)n > size - off)
			abort();
		if (r.has_body && (r.body < data + off ||
		    r.body + r.body_len > data + off + (size_t)n))
			abort();
		if (strlen(r.text) >= sizeof r.text || strlen(r.tag) >=
		    sizeof r.tag || strlen(r.code) >= sizeof r.code)
			abort();
		off += (size_t)n;
	}
	return 0;
}
