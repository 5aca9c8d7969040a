"""`jupyter-book build` with Sphinx reading N pages at once: `python tools/build_book.py N <jupyter-book build arguments>`.

Reading a page executes its notebook, so with N = 2 two chapters run at the same time, one per core. Jupyter Book 1.x
has no option for Sphinx's parallel jobs; this passes one to the function its `build` command calls. Every extension
the book uses declares itself safe for parallel reading (Sphinx reads in order otherwise, and says so).

Two kernels that start at the same instant in two processes may be handed the same free TCP port (jupyter_client finds
free ports by binding and releasing them); the second then dies at start ("Address already in use", and nbclient's
"Kernel died before replying to kernel_info"), which happened once in a dozen parallel builds here. `retry_kernel_start`
makes nbclient start such a kernel again, on new ports, up to `KERNEL_STARTS` times; any other error goes through.
"""
import functools, sys

KERNEL_STARTS = 3
DIED_AT_START = "Kernel died before replying to kernel_info"


def retry_kernel_start(client_class):
    "Make `client_class` (nbclient's NotebookClient) start a new kernel again when one dies before its first reply."
    start_client = client_class.async_start_new_kernel_client
    if getattr(start_client, "retries_kernel_start", False): return
    @functools.wraps(start_client)
    async def start_client_again_if_it_died(self):
        for attempt in range(1, KERNEL_STARTS + 1):
            try: return await start_client(self)          # on failure it has shut the kernel down and dropped its manager
            except RuntimeError as error:
                if DIED_AT_START not in str(error) or attempt == KERNEL_STARTS: raise
                print(f"{DIED_AT_START}: starting it again ({attempt} of {KERNEL_STARTS - 1} retries)", file=sys.stderr)
                self.km = self.create_kernel_manager()     # new ports
                await self.async_start_new_kernel()
    start_client_again_if_it_died.retries_kernel_start = True
    client_class.async_start_new_kernel_client = start_client_again_if_it_died


if __name__ == "__main__":
    import jupyter_book.sphinx
    from jupyter_book.cli.main import main
    from nbclient import NotebookClient

    retry_kernel_start(NotebookClient)
    jobs = int(sys.argv.pop(1))
    jupyter_book.sphinx.build_sphinx = functools.partial(jupyter_book.sphinx.build_sphinx, jobs=jobs)
    sys.argv[0] = "jupyter-book"
    main(["build", *sys.argv[1:]])
