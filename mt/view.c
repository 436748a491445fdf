/*
 * mt view: serve one file once, on 127.0.0.1, to the Perfetto UI; with
 * --ui DIR, a local build of the UI too, until Ctrl+C. See docs/mt.1 (the
 * server) and view.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "quote.h"
#include "spawn.h"
#include "view.h"
#include "xalloc.h"
#include "banned.h"

/*
 * As Perfetto's tools/open_trace_in_ui: port 9001 (the UI's Content
 * Security Policy allows it, as trace_processor's RPC port), the file
 * with Access-Control-Allow-Origin for the UI, served until it has been
 * fetched once.
 */
#define VIEW_PORT 9001
#define VIEW_ORIGIN "https://ui.perfetto.dev"
/*
 * Every local user can connect to 127.0.0.1: the file is at /TOKEN/NAME,
 * TOKEN being TOKEN_BYTES random bytes in hex, as Jupyter's token, so
 * that only who was shown the address can fetch it, or end the serving.
 * The token is printed once, in the address on stdout; the log (stderr)
 * shows it as TOKEN_SHOWN.
 */
#define TOKEN_BYTES 16
#define TOKEN_LEN (2 * TOKEN_BYTES)
#define TOKEN_SHOWN "<token>"
/*
 * Many clients at a time, none able to hold the others off: every socket
 * is non-blocking and polled; a request head must arrive whole within
 * HEAD_SECONDS of the connection, and a response must make progress every
 * SEND_SECONDS. With MAX_CLIENTS connections open, a new one closes the
 * oldest that has not sent its request yet (else the oldest).
 */
#define MAX_CLIENTS 64
#define HEAD_SECONDS 10
#define SEND_SECONDS 10

enum client_state { C_FREE, C_READ, C_WRITE };

struct client {
	int fd;
	enum client_state state;
	time_t since;     /* accepted */
	time_t deadline;  /* of the head, or of the next progress */
	size_t len;       /* of the head read so far */
	char buf[16384];
	char *out;        /* the response head (and short body) */
	size_t out_len, out_pos;
	off_t file_off, file_end; /* the part of the file still to send */
	int ffd;          /* the file sent: the trace's, or a UI file's (own) */
	int own_ffd;      /* ffd is a UI file's, closed with the client */
	int fetch;        /* the UI's GET of the whole file: ends the serving */
};

struct server {
	int file_fd;
	off_t size;
	const char *file;   /* as given */
	const char *name;   /* its last component: the path served */
	const char *origin; /* allowed to read it */
	int port;
	char token[TOKEN_LEN + 1]; /* the secret first component of the path */
	char *ui_root;      /* --ui: the UI's directory (realpath), or NULL */
};

static int is_unreserved(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

/* s percent-encoded as a URL path segment. */
static char *url_encode(const char *s)
{
	char *out = xmalloc(strlen(s) * 3 + 1), *o = out;

	for (; *s; s++) {
		if (is_unreserved((unsigned char)*s))
			*o++ = *s;
		else
			o += snprintf(o, 4, "%%%02X", (unsigned char)*s);
	}
	*o = '\0';
	return out;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode s in place; -1 when it holds a bad escape or a NUL. */
static int url_decode(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '%') {
			int hi = hexval((unsigned char)s[1]), lo;

			if (hi < 0 || (lo = hexval((unsigned char)s[2])) < 0 || !(hi | lo))
				return -1;
			*o++ = (char)(hi * 16 + lo);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return 0;
}

/* sv->token: TOKEN_BYTES of the kernel's random bytes, in hex. */
static void make_token(struct server *sv)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[TOKEN_BYTES];
	int i;

	/* getrandom(2) on Linux, whole for up to 256 bytes */
	if (getentropy(r, sizeof(r)))
		die_errno(MT_EXIT_SYSTEM, "no random bytes for the address's token "
			  "(getentropy)");
	for (i = 0; i < TOKEN_BYTES; i++) {
		sv->token[2 * i] = hex[r[i] >> 4];
		sv->token[2 * i + 1] = hex[r[i] & 15];
	}
	sv->token[TOKEN_LEN] = '\0';
}

/* Whether the n bytes at a and b are equal (with fold 0x20: but for the
 * case of letters), in a time that does not depend on where they differ. */
static int same_secret(const char *a, const char *b, size_t n, int fold)
{
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= (unsigned char)((a[i] | fold) ^ (b[i] | fold));
	return !d;
}

/*
 * Whether target, a request's path without its query, starts with
 * /TOKEN/ (the name asked for, percent-encoded, follows). A shorter,
 * longer or wrong token does not, and the time taken says nothing of how
 * much of a guess was right.
 */
static int token_path(const char *target, const struct server *sv)
{
	return target[0] == '/' && strlen(target) > TOKEN_LEN + 1 &&
	       same_secret(target + 1, sv->token, TOKEN_LEN, 0) &&
	       target[TOKEN_LEN + 1] == '/';
}

/* Replace in s, in place, every copy of the token, in either case, by
 * TOKEN_SHOWN: for the log, which never shows it. */
static void hide_token(char *s, const struct server *sv)
{
	size_t n = strlen(s), i = 0, o = 0;

	while (i < n) {
		if (n - i >= TOKEN_LEN && same_secret(s + i, sv->token, TOKEN_LEN, 0x20)) {
			memcpy(s + o, TOKEN_SHOWN, strlen(TOKEN_SHOWN));
			o += strlen(TOKEN_SHOWN);
			i += TOKEN_LEN;
		} else {
			s[o++] = s[i++];
		}
	}
	s[o] = '\0';
}

/* Queue a whole response with a short text body (none for HEAD). */
static void respond(struct client *c, const struct server *sv, int head,
		    const char *status, const char *extra, const char *body)
{
	free(c->out);
	c->out = xasprintf("HTTP/1.1 %s\r\n"
			   "Access-Control-Allow-Origin: %s\r\n"
			   "Cache-Control: no-cache\r\n"
			   "Connection: close\r\n"
			   "Content-Type: text/plain; charset=utf-8\r\n"
			   "Content-Length: %zu\r\n"
			   "%s\r\n%s",
			   status, sv->origin, strlen(body), extra, head ? "" : body);
	c->out_len = strlen(c->out);
	c->out_pos = 0;
	c->file_off = c->file_end = 0;
}

/* Queue file fd of size bytes, of type ctype (its headers only for
 * HEAD); fd is c's from then on, unless it is the trace's. */
static void respond_fd(struct client *c, const struct server *sv, int head, int fd,
		       off_t size, const char *ctype)
{
	free(c->out);
	c->out = xasprintf("HTTP/1.1 200 OK\r\n"
			   "Access-Control-Allow-Origin: %s\r\n"
			   "Cache-Control: no-cache\r\n"
			   "Connection: close\r\n"
			   "Content-Type: %s\r\n"
			   "Content-Length: %lld\r\n"
			   "\r\n", sv->origin, ctype, (long long)size);
	c->out_len = strlen(c->out);
	c->out_pos = 0;
	c->file_off = 0;
	c->file_end = head ? 0 : size;
	c->ffd = fd;
	c->own_ffd = fd != sv->file_fd;
}

/* Queue the trace (its headers only for HEAD). */
static void respond_file(struct client *c, const struct server *sv, int head)
{
	respond_fd(c, sv, head, sv->file_fd, sv->size, "application/octet-stream");
}

/* The type of a UI file, by its name's end: what a browser needs to run
 * it (a module script, WebAssembly compiled as it streams). */
static const char *ui_type(const char *path)
{
	static const struct { const char *ext, *type; } types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".mjs", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".map", "application/json" },
		{ ".wasm", "application/wasm" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".ico", "image/x-icon" },
		{ ".woff2", "font/woff2" },
		{ ".woff", "font/woff" },
		{ ".ttf", "font/ttf" },
		{ ".txt", "text/plain; charset=utf-8" },
	};
	size_t n = strlen(path), i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t k = strlen(types[i].ext);

		if (n > k && !strcmp(path + n - k, types[i].ext))
			return types[i].type;
	}
	return "application/octet-stream";
}

/*
 * --ui: the file of the UI's directory that path (a request's, decoded)
 * names, "/" its index.html, queued: 1; 0 when it names nothing there.
 * Nothing outside the directory is served: no ".." component, and the
 * file, its links resolved, must lie inside it and be a regular file.
 */
static int respond_ui(struct client *c, const struct server *sv, int head, const char *path)
{
	size_t root = strlen(sv->ui_root);
	char *full, *real;
	struct stat st;
	int fd;

	if (path[0] != '/' || strstr(path, "/../") ||
	    (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/..")))
		return 0;
	full = xasprintf("%s%s%s", sv->ui_root, path,
			 path[strlen(path) - 1] == '/' ? "index.html" : "");
	real = realpath(full, NULL);
	free(full);
	if (!real)
		return 0;
	if (strncmp(real, sv->ui_root, root) || real[root] != '/' ||
	    (fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0) {
		free(real);
		return 0;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		free(real);
		return 0;
	}
	respond_fd(c, sv, head, fd, st.st_size, ui_type(real));
	free(real);
	return 1;
}

/* A copy of the value of header name (with its colon) in the header
 * lines of a request, or NULL. */
static char *header(const char *lines, const char *name)
{
	const char *line = lines;
	size_t n = strlen(name);

	while (*line) {
		const char *end = strchr(line, '\n'), *v;

		if (!end)
			end = line + strlen(line);
		if (end == line || (end == line + 1 && *line == '\r'))
			break; /* the end of the head */
		if (!strncasecmp(line, name, n)) {
			char *copy;

			v = line + n;
			v += strspn(v, " \t");
			while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				end--;
			copy = xasprintf("%.*s", (int)(end - v), v);
			return copy;
		}
		line = *end ? end + 1 : end;
	}
	return NULL;
}

static int host_allowed(const char *host, int port)
{
	char a[64], b[64];

	if (!host)
		return 1; /* not a browser: they all send Host */
	snprintf(a, sizeof(a), "127.0.0.1:%d", port);
	snprintf(b, sizeof(b), "localhost:%d", port);
	if (!strcasecmp(host, a) || !strcasecmp(host, b))
		return 1;
	return port == 80 && (!strcasecmp(host, "127.0.0.1") || !strcasecmp(host, "localhost"));
}

/*
 * Answer the request in c->buf, whose head is complete: queue the
 * response, log the request. The file is at /TOKEN/NAME alone: any other
 * path is 404, the bare /NAME too. Only a GET of the file from the UI (its
 * Origin: a CORS fetch, as the UI's ?url= makes) is the fetch that ends
 * the serving; one without Origin (curl, or a no-cors request of another
 * page, an <img>) is answered but does not count.
 */
static void handle(struct client *c, const struct server *sv)
{
	char *method = c->buf, *target = NULL, *version, *rest, *q;
	char *hdrs, *host = NULL, *origin = NULL, *name = NULL;
	char qm[MT_QUOTE_SIZE(16)], qt[MT_QUOTE_SIZE(64)];
	int head;
	const char *what = "400";

	rest = strchr(c->buf, '\n');
	if (!rest) {
		respond(c, sv, 0, "400 Bad Request", "", "bad request\n");
		goto log;
	}
	*rest = '\0';
	hdrs = rest + 1;
	if (rest > c->buf && rest[-1] == '\r')
		rest[-1] = '\0';
	target = strchr(method, ' ');
	version = target ? strchr(target + 1, ' ') : NULL;
	if (!target || !version || strncmp(version + 1, "HTTP/1.", 7)) {
		target = NULL;
		respond(c, sv, 0, "400 Bad Request", "", "bad request\n");
		goto log;
	}
	*target++ = '\0';
	*version = '\0';
	host = header(hdrs, "host:");
	origin = header(hdrs, "origin:");
	if ((q = strchr(target, '?')))
		*q = '\0';
	if (token_path(target, sv))
		name = target + TOKEN_LEN + 2;
	head = !strcmp(method, "HEAD");
	if (!host_allowed(host, sv->port) || (origin && strcmp(origin, sv->origin))) {
		/* another site, or a name rebound to 127.0.0.1 */
		what = "403";
		respond(c, sv, head, "403 Forbidden", "", "forbidden\n");
	} else if (!strcmp(method, "OPTIONS")) {
		/* a CORS preflight, with Chrome's Private Network Access */
		what = "204";
		respond(c, sv, 0, "204 No Content",
			"Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n"
			"Access-Control-Allow-Headers: *\r\n"
			"Access-Control-Allow-Private-Network: true\r\n"
			"Access-Control-Max-Age: 600\r\n", "");
	} else if (strcmp(method, "GET") && !head) {
		what = "405";
		respond(c, sv, 0, "405 Method Not Allowed",
			"Allow: GET, HEAD, OPTIONS\r\n", "method not allowed\n");
	} else if (url_decode(name ? name : target) /* for the log too */) {
		what = "404";
		respond(c, sv, head, "404 Not Found", "", "not found\n");
	} else if (!name && sv->ui_root && respond_ui(c, sv, head, target)) {
		what = "200";
	} else if (!name || strcmp(name, sv->name)) {
		what = "404";
		respond(c, sv, head, "404 Not Found", "", "not found\n");
	} else {
		what = origin || head ? "200" : "200 (no Origin: not the UI's fetch)";
		respond_file(c, sv, head);
		c->fetch = !head && origin;
	}
log:
	/* what came from outside, printable: no escape reaches the terminal */
	if (target) {
		hide_token(target, sv);
		warn("%s %s: %s", mt_quote_str(qm, sizeof(qm), method),
		     mt_quote_str(qt, sizeof(qt), target), what);
	} else {
		warn("a malformed request: %s", what);
	}
	free(host);
	free(origin);
	c->state = C_WRITE;
}

static void client_close(struct client *c)
{
	char sink[4096];
	int i;

	/* unread input would make close() reset the connection, and the
	 * client could lose the response */
	shutdown(c->fd, SHUT_WR);
	for (i = 0; i < 16 && recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	close(c->fd);
	if (c->own_ffd)
		close(c->ffd); /* a UI file's */
	c->ffd = -1;
	c->own_ffd = 0;
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	c->state = C_FREE;
}

/* Send what c can take now; 1 when the fetch went out whole. */
static int client_write(struct client *c, const struct server *sv, time_t now)
{
	static char buf[65536];
	int fetched;

	while (c->out_pos < c->out_len || c->file_off < c->file_end) {
		const char *p;
		size_t n;
		ssize_t k;

		if (c->out_pos < c->out_len) {
			p = c->out + c->out_pos;
			n = c->out_len - c->out_pos;
		} else {
			n = c->file_end - c->file_off < (off_t)sizeof(buf) ?
				(size_t)(c->file_end - c->file_off) : sizeof(buf);
			k = pread(c->ffd, buf, n, c->file_off);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				die_errno(MT_EXIT_SYSTEM, "%s", sv->file);
			if (k == 0) {
				warn("%s: shorter than when it was opened: the transfer is cut",
				     sv->file);
				client_close(c);
				return 0;
			}
			p = buf;
			n = (size_t)k;
		}
		k = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0; /* poll says when it can take more */
		if (k < 0) {
			if (c->file_end)
				warn("the reader went away after %lld of %lld bytes",
				     (long long)c->file_off, (long long)c->file_end);
			client_close(c);
			return 0;
		}
		if (c->out_pos < c->out_len)
			c->out_pos += (size_t)k;
		else
			c->file_off += k;
		c->deadline = now + SEND_SECONDS;
	}
	fetched = c->fetch;
	client_close(c);
	return fetched;
}

/* Read what c has sent; answer once the head is whole. 1 when that
 * ended with the fetch sent whole. */
static int client_read(struct client *c, const struct server *sv, time_t now)
{
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);

	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n <= 0) {
		client_close(c);
		return 0;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	if (strlen(c->buf) != c->len) {
		respond(c, sv, 0, "400 Bad Request", "", "bad request\n");
		warn("a malformed request: 400");
		c->state = C_WRITE;
	} else if (strstr(c->buf, "\r\n\r\n") || strstr(c->buf, "\n\n")) {
		handle(c, sv);
	} else if (c->len == sizeof(c->buf) - 1) {
		respond(c, sv, 0, "431 Request Header Fields Too Large", "",
			"request too large\n");
		warn("a request too large: 431");
		c->state = C_WRITE;
	} else {
		return 0;
	}
	c->deadline = now + SEND_SECONDS;
	return client_write(c, sv, now);
}

/* A slot for a new connection: a free one, else the oldest that has not
 * sent its request, else the oldest, closed. */
static struct client *client_slot(struct client *cl)
{
	struct client *victim = NULL;
	int i;

	for (i = 0; i < MAX_CLIENTS; i++) {
		if (cl[i].state == C_FREE)
			return &cl[i];
		if (!victim || (cl[i].state == C_READ && victim->state != C_READ) ||
		    (cl[i].state == victim->state && cl[i].since < victim->since))
			victim = &cl[i];
	}
	client_close(victim);
	return victim;
}

/* Seconds of a clock that does not jump. */
static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static int listen_on(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), on = 1;

	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (errno == EADDRINUSE)
			die(MT_EXIT_SYSTEM, "127.0.0.1:%d is in use (another mt view, or "
			    "trace_processor_shell --httpd?); try -p", port);
		die_errno(MT_EXIT_SYSTEM, "127.0.0.1:%d", port);
	}
	if (listen(fd, MAX_CLIENTS))
		die_errno(MT_EXIT_SYSTEM, "listen");
	return fd;
}

/* Start the desktop's URL opener on url, in a session of its own so that
 * Ctrl+C on mt leaves the browser alone; its pid, or -1. */
static pid_t open_browser(const char *url)
{
#ifdef __APPLE__
	const char *opener = "open";
#else
	const char *opener = "xdg-open";
#endif
	char *path = mt_which(opener), *argv[] = { (char *)opener, (char *)url, NULL };
	struct mt_spawn sp = MT_SPAWN_INIT;

#ifndef __APPLE__
	/* without a display, xdg-open falls back on a text browser in this
	 * terminal */
	if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) {
		free(path);
		return -1;
	}
#endif
	if (!path)
		return -1;
	fflush(NULL);
	sp.in = sp.out = sp.err = MT_SPAWN_NULL;
	sp.path = path;
	sp.new_session = 1;
	if (mt_spawn_start(&sp, argv)) {
		warn("%s: %s", sp.failed, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	return sp.pid;
}

/* mt view's options into sv and *no_open; dies on a bad one. Returns
 * the index in argv of the file. */
static int view_options(int argc, char **argv, const char *usage,
			struct server *sv, int *no_open, const char **ui)
{
	enum { OPT_NO_OPEN = 256, OPT_ORIGIN, OPT_UI, OPT_HELP, OPT_VERSION };
	static const struct option longopts[] = {
		{ "no-open", no_argument, NULL, OPT_NO_OPEN },
		{ "origin", required_argument, NULL, OPT_ORIGIN },
		{ "ui", required_argument, NULL, OPT_UI },
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c, origin_given = 0;

	while ((c = getopt_long(argc, argv, "p:", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || v < 0 || v > 65535)
				die(MT_EXIT_USAGE, "-p %s: expected a port number, 0 to 65535",
				    optarg);
			sv->port = (int)v;
			break;
		}
		case OPT_NO_OPEN:
			*no_open = 1;
			break;
		case OPT_ORIGIN:
			sv->origin = optarg;
			origin_given = 1;
			break;
		case OPT_UI:
			*ui = optarg;
			break;
		case OPT_HELP:
			usage_ok(usage);
		case OPT_VERSION:
			version_ok();
		default:
			usage_fail(usage);
		}
	}
	if (argc - optind != 1)
		usage_fail(usage);
	if (*ui && origin_given)
		die(MT_EXIT_USAGE, "--ui and --origin: the UI of --ui is served here, its "
		    "origin this server's");
	return optind;
}

/* The UI's directory (--ui, else MT_PERFETTO_UI, else magic-trace's
 * MAGIC_TRACE_PERFETTO_DIR): its realpath (malloced), or NULL for none;
 * dies when it holds no index.html. */
static char *ui_dir(const char *given)
{
	const char *dir = given;
	char *real, *index;
	struct stat st;

	if (!dir || !*dir)
		dir = getenv("MT_PERFETTO_UI");
	if (!dir || !*dir)
		dir = getenv("MAGIC_TRACE_PERFETTO_DIR");
	if (!dir || !*dir)
		return NULL;
	if (!(real = realpath(dir, NULL)))
		die_errno(MT_EXIT_SYSTEM, "the Perfetto UI's directory %s", dir);
	index = xasprintf("%s/index.html", real);
	if (stat(index, &st) || !S_ISREG(st.st_mode))
		die(MT_EXIT_DATA, "%s: no index.html: not a build of the Perfetto UI (the "
		    "directory a Perfetto ui/build leaves, ui/out/dist)", dir);
	free(index);
	return real;
}

/* The --origin without its trailing slashes (malloced), checked. */
static char *clean_origin(const char *given)
{
	char *origin = xstrdup(given);

	while (*origin && origin[strlen(origin) - 1] == '/')
		origin[strlen(origin) - 1] = '\0';
	if (strncmp(origin, "http://", 7) && strncmp(origin, "https://", 8))
		die(MT_EXIT_USAGE, "--origin %s: expected http://HOST or https://HOST",
		    given);
	return origin;
}

/* Open sv->file, the file to serve, into sv (its name, descriptor, size). */
static void open_served(struct server *sv)
{
	const char *slash = strrchr(sv->file, '/');
	struct stat st;

	sv->name = slash ? slash + 1 : sv->file;
	if (!*sv->name)
		die(MT_EXIT_USAGE, "%s: give a file, not a directory", sv->file);
	/* the file as it is now: a later trace under its name does not
	 * replace it */
	/* O_NONBLOCK: a FIFO is refused at once, not waited on for a writer */
	sv->file_fd = open(sv->file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (sv->file_fd < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", sv->file);
	if (fstat(sv->file_fd, &st))
		die_errno(MT_EXIT_SYSTEM, "%s", sv->file);
	if (!S_ISREG(st.st_mode))
		die(MT_EXIT_DATA, "%s: not a regular file", sv->file);
	sv->size = st.st_size;
}

/* The UI's address that loads url (malloced): the url inside its query,
 * its own escapes escaped once more. */
static char *ui_address(const char *origin, const char *url)
{
	char *ui, *u;
	int i;

	ui = xmalloc(strlen(origin) + strlen("/#!/?url=") + strlen(url) * 3 + 1);
	u = ui + snprintf(ui, strlen(origin) + 10, "%s/#!/?url=", origin);
	for (i = 0; url[i]; i++) {
		if (url[i] == '%') {
			memcpy(u, "%25", 3);
			u += 3;
		} else {
			*u++ = url[i];
		}
	}
	*u = '\0';
	return ui;
}

/*
 * Close the clients past their deadline; fill pfd (with who[], the
 * client's index, -1 for the listening socket lfd) with what to poll.
 * Returns the number of entries.
 */
static int poll_set(struct client *clients, int lfd, struct pollfd *pfd, int *who)
{
	time_t now = now_s();
	int i, n = 0;

	for (i = 0; i < MAX_CLIENTS; i++) {
		struct client *cl = &clients[i];

		if (cl->state != C_FREE && now >= cl->deadline) {
			if (cl->state == C_WRITE && cl->file_end)
				warn("a reader stalled after %lld of %lld bytes: "
				     "dropped", (long long)cl->file_off,
				     (long long)cl->file_end);
			client_close(cl);
		}
		if (cl->state == C_FREE)
			continue;
		pfd[n].fd = cl->fd;
		pfd[n].events = cl->state == C_READ ? POLLIN : POLLOUT;
		who[n++] = i;
	}
	pfd[n].fd = lfd;
	pfd[n].events = POLLIN;
	who[n++] = -1;
	return n;
}

/* A browser opener that has ended: a line when it failed. Returns the
 * opener still running, or -1. */
static pid_t reap_opener(pid_t opener)
{
	int status;

	if (opener <= 0 || waitpid(opener, &status, WNOHANG) != opener)
		return opener;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		warn("the browser did not open; open the address above by hand");
	return -1;
}

/* A new connection on lfd into a client slot (none when accept fails). */
static void accept_client(struct client *clients, int lfd, time_t now)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	struct client *cl;

	if (fd < 0)
		return;
	cl = client_slot(clients);
	cl->fd = fd;
	cl->ffd = -1;
	cl->own_ffd = 0;
	cl->state = C_READ;
	cl->len = 0;
	cl->fetch = 0;
	cl->since = now;
	cl->deadline = now + HEAD_SECONDS;
}

/* Serve the clients of lfd until the file has been fetched once; then
 * close them all. opener: the browser opener, or -1. */
static void serve(const struct server *sv, int lfd, pid_t opener)
{
	static struct client clients[MAX_CLIENTS];
	int done = 0, i;

	for (i = 0; i < MAX_CLIENTS; i++)
		clients[i].fd = clients[i].ffd = -1;
	while (!done) {
		struct pollfd pfd[MAX_CLIENTS + 1];
		int who[MAX_CLIENTS + 1], n, k;
		time_t now;

		n = poll_set(clients, lfd, pfd, who);
		opener = reap_opener(opener);
		k = poll(pfd, (nfds_t)n, 1000);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			die_errno(MT_EXIT_SYSTEM, "poll");
		}
		now = now_s();
		for (i = 0; i < n && k > 0 && !done; i++) {
			struct client *cl;

			if (!pfd[i].revents)
				continue;
			if (who[i] < 0) {
				accept_client(clients, lfd, now);
				continue;
			}
			cl = &clients[who[i]];
			if (cl->state == C_READ)
				done = client_read(cl, sv, now);
			else if (cl->state == C_WRITE)
				done = client_write(cl, sv, now);
			if (sv->ui_root)
				done = 0; /* the UI fetches more as it runs */
		}
	}
	for (i = 0; i < MAX_CLIENTS; i++)
		if (clients[i].state != C_FREE)
			client_close(&clients[i]);
}

int mt_view(int argc, char **argv, const char *usage)
{
	struct server sv = { .origin = VIEW_ORIGIN, .port = VIEW_PORT };
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	char *origin, *path, *url, *ui;
	const char *ui_given = NULL;
	int lfd, no_open = 0;
	pid_t opener = -1;

	sv.file = argv[view_options(argc, argv, usage, &sv, &no_open, &ui_given)];
	sv.ui_root = ui_dir(ui_given);
	origin = clean_origin(sv.origin);
	sv.origin = origin;
	open_served(&sv);
	make_token(&sv);
	signal(SIGPIPE, SIG_IGN);

	lfd = listen_on(sv.port);
	if (getsockname(lfd, (struct sockaddr *)&sa, &salen))
		die_errno(MT_EXIT_SYSTEM, "getsockname");
	sv.port = ntohs(sa.sin_port);
	if (sv.ui_root) { /* the UI here: its fetches are this origin's */
		free(origin);
		sv.origin = origin = xasprintf("http://127.0.0.1:%d", sv.port);
	}
	path = url_encode(sv.name);
	url = xasprintf("http://127.0.0.1:%d/%s/%s", sv.port, sv.token, path);
	ui = ui_address(sv.origin, url);
	printf("%s\n", ui);
	if (fflush(stdout))
		output_write_failed();
	if (sv.ui_root)
		fprintf(stderr, "%s: serving %s at http://127.0.0.1:%d/%s/%s and the Perfetto "
			"UI of %s at http://127.0.0.1:%d/ until Ctrl+C\n", mt_progname(),
			sv.file, sv.port, TOKEN_SHOWN, path, sv.ui_root, sv.port);
	else
		fprintf(stderr, "%s: serving %s at http://127.0.0.1:%d/%s/%s until it has "
			"been fetched once (Ctrl+C to stop)\n", mt_progname(), sv.file,
			sv.port, TOKEN_SHOWN, path);
	if (!no_open && (opener = open_browser(ui)) < 0)
		fprintf(stderr, "%s: open the address above in a browser\n",
			mt_progname());

	serve(&sv, lfd, opener);
	close(lfd);
	close(sv.file_fd);
	fprintf(stderr, "%s: %s was fetched (%lld bytes); stopped serving\n",
		mt_progname(), sv.file, (long long)sv.size);
	free(origin);
	free(path);
	free(url);
	free(ui);
	free(sv.ui_root);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
