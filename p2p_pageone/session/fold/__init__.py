"""The public fold of the table's log, knowing no role (docs/ARCHITECTURE.md): the state
(``state``), one module per group of entry kinds, each with the checks and the effects of its
kinds (``lobby``, ``dealing``, ``leaving``, ``presence``), the hand's life (``rounds``), the
questions every role asks (``queries``), one ``apply_entry`` (``apply``) and ``TableState``
(``table``)."""
