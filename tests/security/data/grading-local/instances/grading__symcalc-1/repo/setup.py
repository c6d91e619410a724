from setuptools import find_packages
from setuptools import setup

setup(
    name="symcalc",
    version="1.9.0",
    description="Polynomials with coefficients listed lowest degree first.",
    packages=find_packages(),
    python_requires=">=3.9",
)
