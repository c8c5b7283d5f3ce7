"""The build step pyproject.toml cannot say: each catalogue (pbem/locale/<lang>/LC_MESSAGES/
pbem.po) compiled into the pbem.mo the package reads at run time, beside it in the wheel."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class CompileCatalogues(build_py):
    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path("pbem/locale").glob("*/LC_MESSAGES/*.po"):
            with po.open("rb") as file:
                catalogue = read_po(file, abort_invalid=True)
            target = Path(self.build_lib) / po.with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("wb") as out:
                write_mo(out, catalogue, use_fuzzy=False)


setup(cmdclass={"build_py": CompileCatalogues})
