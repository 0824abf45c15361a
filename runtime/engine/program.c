/*
 * program.c — what a program around the library needs of it beyond the
 * engines (rlx_runtime.h): a file written whole, and the signal handlers
 * the library's files rely on, which only a program may install.
 */
#include <signal.h>

#include "rt.h"
#include "rlx_runtime.h"

int
rlx_write_file(const char *path, const void *data, size_t len, rlx_diags *d)
{
	RtError e;
	if (rt_file_put(path, data, len, &e))
		return RLX_OK;
	diag_file(d, DIAG_ERROR, NULL, "%s", e.msg);
	return RLX_EINPUT;
}

void
rlx_install_signal_handlers(void)
{
	/* SIGINT, SIGTERM, SIGHUP: remove the temporaries, exit 128 + sig */
	rt_cleanup_install();
	/* a mapped checkpoint truncated under us: an error, not SIGBUS */
	rt_map_guard_install();
	/* over a file-size limit a write fails with EFBIG, an error naming
	 * the file that removes the temporaries, instead of the signal
	 * killing the process and leaving them */
	signal(SIGXFSZ, SIG_IGN);
}
