"""Corpora that measure grading integrity: hostile patches that must never be rewarded and honest
patches that must always resolve, generated for any instance from its :class:`InstanceContext`.

* :mod:`.context` describes an instance generically (files at base, patches, test ids, reader,
  package names, test command) and loads the local benchmarks' rows;
* :mod:`.gitpatch` writes patches with real ``git diff`` in a scratch checkout;
* :mod:`.attacks` and :mod:`.honest` generate the cases;
* :mod:`.replay` grades a corpus through the real harness in one pytest run and reads the JUnit
  ledger back.
"""
