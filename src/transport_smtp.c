/* transport_smtp: outgoing mail by SMTP submission through libcurl
 * (outbox = smtp://HOST[:PORT] with STARTTLS, or smtps://HOST[:PORT]).
 * Certificates are verified (tls_ca_file adds a CA); AUTH with smtp_user
 * and the SMTP password when given. One easy handle serves a whole batch,
 * so libcurl keeps one connection open across its messages.
 *
 * Messages are stored with LF line ends (mime_build); SMTP wants CRLF, so
 * they are converted here; libcurl dot-stuffs. The envelope sender is the
 * outbox row's: empty (MAIL FROM:<>) for auto-replies.
 *
 * Failures: a 5xx reply to MAIL, RCPT or DATA is permanent (the message is
 * marked failed and shown by 'hexpost outbox'); a 4xx reply, a connection
 * that fails or times out, TLS and authentication failures are temporary
 * (retried with backoff). Once the server cannot be reached, the rest of
 * the batch is not tried. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "transport.h"

/* The connection, as far as the transport can tell (for the logs). */
enum smtp_state {
	SMTP_IDLE,        /* no connection yet */
	SMTP_CONNECTED,   /* a message went through; libcurl keeps the line */
	SMTP_DOWN         /* unreachable: the rest of the batch waits */
};

static const char *smtp_state_names[] = { "idle", "connected", "down" };

static const char *
smtp_strstate(enum smtp_state s)
{
	return (unsigned)s < 3 ? smtp_state_names[s] : "unknown";
}

struct smtp_ctx {
	CURL *curl;
	enum smtp_state state;
	char url[CONFIG_PATH_MAX + 300];
	char errbuf[CURL_ERROR_SIZE];
	char down_msg[HP_ERRLEN];
	struct sbuf data;    /* the message being sent, CRLF line ends */
	size_t off;
	long connections;
	int sent;
	int budget_s;        /* mail_budget: the whole batch */
	long long deadline_ms; /* monotonic end of the batch */
};

/* Milliseconds on the monotonic clock. */
static long long
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libcurl upload callback: the next piece of the message in hand. */
static size_t
read_cb(char *buf, size_t size, size_t nitems, void *arg)
{
	struct smtp_ctx *c = arg;
	size_t n = size * nitems;

	if (n > c->data.len - c->off)
		n = c->data.len - c->off;
	memcpy(buf, c->data.buf + c->off, n);
	c->off += n;
	return n;
}

/* Open a batch on url (the whole smtp[s]:// URL). */
static int
smtp_open_url(const struct config *cfg, const char *scheme, const char *spec,
    void **ctxp, struct hp_error *err)
{
	struct smtp_ctx *c = xcalloc(1, sizeof *c);
	size_t n = strlen(spec);
	long t = cfg->mail_timeout;

	while (n > 0 && spec[n - 1] == '/')
		n--;
	/* The path is the EHLO name: hexpost's domain. */
	snprintf(c->url, sizeof c->url, "%s%.*s/%s", scheme, (int)n, spec,
	    cfg->domain);
	if ((c->curl = curl_easy_init()) == NULL) {
		free(c);
		hp_seterr(err, HP_ESTATE, "curl_easy_init failed");
		return HP_ESTATE;
	}
	sbuf_init(&c->data);
	c->budget_s = cfg->mail_budget;
	c->deadline_ms = mono_ms() + (long long)cfg->mail_budget * 1000;
	curl_easy_setopt(c->curl, CURLOPT_URL, c->url);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c->curl, CURLOPT_SSLVERSION,
	    (long)CURL_SSLVERSION_TLSv1_2);
	if (!config_cleartext_ok(c->url, strcmp(scheme, "smtp://") != 0 ||
	    cfg->smtp_starttls != CONFIG_TLS_OFF, cfg->smtp_user[0] != '\0' &&
	    cfg->secrets != NULL && cfg->secrets->smtp_password[0] != '\0',
	    c->errbuf, sizeof c->errbuf)) {
		hp_seterr(err, HP_ESTATE, "smtp: %s", c->errbuf);
		curl_easy_cleanup(c->curl);
		sbuf_free(&c->data);
		free(c);
		return HP_ESTATE;
	}
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, t);
	curl_easy_setopt(c->curl, CURLOPT_SERVER_RESPONSE_TIMEOUT, t);
	curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c->curl, CURLOPT_LOW_SPEED_TIME, t);
	curl_easy_setopt(c->curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c->curl, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c->curl, CURLOPT_READDATA, c);
	if (strcmp(scheme, "smtp://") == 0)
		curl_easy_setopt(c->curl, CURLOPT_USE_SSL, (long)
		    (cfg->smtp_starttls == CONFIG_TLS_OFF ? CURLUSESSL_NONE :
		    CURLUSESSL_ALL));
	if (cfg->tls_ca_file[0] != '\0')
		curl_easy_setopt(c->curl, CURLOPT_CAINFO, cfg->tls_ca_file);
	if (cfg->smtp_user[0] != '\0') {
		curl_easy_setopt(c->curl, CURLOPT_USERNAME, cfg->smtp_user);
		if (cfg->secrets != NULL)
			curl_easy_setopt(c->curl, CURLOPT_PASSWORD,
			    cfg->secrets->smtp_password);
	}
	*ctxp = c;
	return HP_OK;
}

/* transport open for smtp:// (STARTTLS); *ctx owned by ts_close. */
static int
ts_open(const struct config *cfg, const char *spec, void **ctx,
    struct hp_error *err)
{
	return smtp_open_url(cfg, "smtp://", spec, ctx, err);
}

/* transport open for smtps:// (TLS); *ctx owned by ts_close. */
static int
tss_open(const struct config *cfg, const char *spec, void **ctx,
    struct hp_error *err)
{
	return smtp_open_url(cfg, "smtps://", spec, ctx, err);
}

/* data with every bare LF made CRLF, into b. */
static void
to_crlf(struct sbuf *b, const unsigned char *data, size_t len)
{
	size_t i, start = 0;

	b->len = 0;
	for (i = 0; i < len; i++)
		if (data[i] == '\n' && (i == 0 || data[i - 1] != '\r')) {
			sbuf_add(b, (const char *)data + start, i - start);
			sbuf_add(b, "\r\n", 2);
			start = i + 1;
		}
	sbuf_add(b, (const char *)data + start, len - start);
}

/* Is an SMTP reply code about authentication (a setting to fix, not a
 * message to give up)? */
static bool
auth_code(long code)
{
	return code == 530 || code == 534 || code == 535 || code == 538;
}

/* Send one message; HP_EINVAL a permanent refusal, HP_ESTATE retry. */
static int
ts_send(void *ctx, const struct store_outmsg *m, struct hp_error *err)
{
	struct smtp_ctx *c = ctx;
	struct curl_slist *rcpt;
	long code = 0, conns = 0;
	CURLcode cc;

	long long left = c->deadline_ms - mono_ms();

	if (c->state == SMTP_DOWN) {
		hp_seterr(err, HP_ESTATE, "not tried: %s", c->down_msg);
		return HP_ESTATE;
	}
	if (left <= 0) {
		hp_seterr(err, HP_ESTATE, "not tried: the SMTP batch is over its "
		    "budget of %d s (mail_budget)", c->budget_s);
		log_warn("smtp %s: %s", c->url, err->msg);
		c->state = SMTP_DOWN;
		strlcpy_(c->down_msg, err->msg, sizeof c->down_msg);
		return HP_ESTATE;
	}
	/* The message, the whole exchange, within what is left of the
	 * batch's budget: a 1 byte/s trickle passes the low-speed check but
	 * not this. */
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)left);
	to_crlf(&c->data, m->data, m->len);
	c->off = 0;
	c->errbuf[0] = '\0';
	rcpt = curl_slist_append(NULL, m->rcpt);
	/* "" gives MAIL FROM:<>. */
	curl_easy_setopt(c->curl, CURLOPT_MAIL_FROM, m->envelope_from);
	curl_easy_setopt(c->curl, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c->curl, CURLOPT_INFILESIZE_LARGE,
	    (curl_off_t)c->data.len);
	cc = curl_easy_perform(c->curl);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &conns);
	c->connections += conns;
	curl_easy_setopt(c->curl, CURLOPT_MAIL_RCPT, NULL);
	curl_slist_free_all(rcpt);
	if (cc == CURLE_OK) {
		c->state = SMTP_CONNECTED;
		c->sent++;
		return HP_OK;
	}
	hp_seterr(err, HP_ESTATE, "%s%s%s (reply %ld)", c->errbuf[0] ?
	    c->errbuf : "", c->errbuf[0] ? ": " : "", curl_easy_strerror(cc),
	    code);
	if (code >= 500 && code < 600 && !auth_code(code) &&
	    cc != CURLE_LOGIN_DENIED) {
		err->code = HP_EINVAL;
		return HP_EINVAL;
	}
	if ((code >= 400 && code < 500) && !auth_code(code))
		return HP_ESTATE;
	/* No reply that concerns this message: the server, the network, TLS
	 * or the credentials. The next batch tries again. */
	if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST ||
	    cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_SSL_CONNECT_ERROR ||
	    cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_USE_SSL_FAILED ||
	    cc == CURLE_LOGIN_DENIED || auth_code(code)) {
		log_warn("smtp %s: %s (was %s)", c->url, err->msg,
		    smtp_strstate(c->state));
		c->state = SMTP_DOWN;
		strlcpy_(c->down_msg, err->msg, sizeof c->down_msg);
	}
	return HP_ESTATE;
}

/* Log the batch, close the connection and free ctx. */
static void
ts_close(void *ctx)
{
	struct smtp_ctx *c = ctx;

	if (c->sent > 0)
		log_info("smtp %s: %d message%s over %ld connection%s", c->url,
		    c->sent, c->sent == 1 ? "" : "s", c->connections,
		    c->connections == 1 ? "" : "s");
	curl_easy_cleanup(c->curl);
	sbuf_free(&c->data);
	free(c);
}

const struct transport_ops transport_smtp = {
	.prefix = "smtp://",
	.open = ts_open,
	.send = ts_send,
	.close = ts_close,
};

const struct transport_ops transport_smtps = {
	.prefix = "smtps://",
	.open = tss_open,
	.send = ts_send,
	.close = ts_close,
};
