/* fuzz-dns.c - libFuzzer harness: the sidecar's DNS parser on any bytes, as a
 * query from the sandbox and as an answer from upstream; then the CNAME walk
 * and the local refusal on whatever parsed; a query's rebuilt upstream form
 * must parse again to the same question. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../sidecar/dns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lz_err_t err = LZ_ERR_INIT;
	struct dns_msg m;
	struct dns_addr a[DNS_MAX_ADDRS];
	uint8_t out[512];

	if (dns_parse(data, size, &m, &err) == 0) {
		size_t n = dns_answer_addrs(&m, a, DNS_MAX_ADDRS);

		if (n > DNS_MAX_ADDRS)
			abort();
		if (strlen(m.qname) > DNS_NAME_MAX)
			abort();
		(void)dns_reply_empty(data, &m, DNS_RCODE_REFUSED, out, sizeof out);
		if (!dns_is_response(&m)) {
			struct dns_msg r;
			size_t n2 = dns_query_build(&m, 7, out, sizeof out);

			if (n2 == 0 || dns_parse(out, n2, &r, &err) < 0)
				abort();	/* every parsed question can be rebuilt */
			if (strcmp(r.qname, m.qname) != 0 || r.qtype != m.qtype ||
			    r.qclass != m.qclass || r.edns != m.edns || r.id != 7)
				abort();
			dns_msg_clear(&r);
		}
		dns_msg_clear(&m);
	} else if (err.msg == NULL)
		abort();	/* an error always says what is wrong */
	lz_err_clear(&err);
	return 0;
}
