"""The REST plumbing every app's ``apis.py`` shares: the error body and handler (``errors``), the
routes (``urls``), pagination (``pagination``) and serializer fields (``fields``)."""
