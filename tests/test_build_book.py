"""tools/build_book.py's retry of a kernel that dies before its first reply (two kernels of a parallel book build handed
the same port): the chapter runs on a second kernel; any other error at start goes through."""
import importlib.util
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

spec = importlib.util.spec_from_file_location("build_book", Path(__file__).parents[1] / "tools" / "build_book.py")
build_book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_book)


def flaky_client(error, failures):
    "A NotebookClient whose first `failures` kernels fail at start with `error`, as nbclient fails: the kernel shut down."
    class Flaky(NotebookClient):
        left, starts = failures, 0
        async def async_start_new_kernel_client(self):
            type(self).starts += 1
            if type(self).left:
                type(self).left -= 1
                self.kc = self.km.client()
                await self._async_cleanup_kernel()              # what nbclient does before it raises
                raise RuntimeError(error)
            return await super().async_start_new_kernel_client()
    build_book.retry_kernel_start(Flaky)
    return Flaky


def notebook():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def test_a_kernel_that_died_at_start_is_started_again():
    Flaky = flaky_client(build_book.DIED_AT_START, failures=1)
    nb = Flaky(notebook(), timeout=60).execute()
    assert nb.cells[0].outputs[0]["text"] == "42\n" and Flaky.starts == 2


def test_other_errors_and_a_kernel_that_keeps_dying_go_through():
    with pytest.raises(RuntimeError, match="something else"):
        flaky_client("something else", failures=1)(notebook(), timeout=60).execute()
    with pytest.raises(RuntimeError, match=build_book.DIED_AT_START):
        flaky_client(build_book.DIED_AT_START, failures=build_book.KERNEL_STARTS)(notebook(), timeout=60).execute()
