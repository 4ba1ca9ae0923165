"""One upload handler for every request: a file part is kept in memory up to the largest file
this site accepts (a 64 KB solution) plus one byte; the rest is read and dropped.

Django's default handlers spool any upload over 2.5 MB to a temporary file with no upper
bound, and they run whenever anything reads ``request.POST``, the CSRF middleware included:
before this handler an anonymous multipart POST of several GB to any page was written to the
server's disk before being refused. The reported ``size`` is the true size, so the API and the
submit form still say "at most 65536 bytes; this is N".
"""

from __future__ import annotations

from io import BytesIO
from typing import Any

from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopFutureHandlers

from market.models.problems import MAX_SOLUTION_BYTES

KEEP_BYTES = MAX_SOLUTION_BYTES + 1


class CappedMemoryUploadHandler(FileUploadHandler):
    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.file = BytesIO()
        self.kept = 0
        raise StopFutureHandlers()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        room = KEEP_BYTES - self.kept
        if room > 0:
            chunk = raw_data[:room]
            self.file.write(chunk)
            self.kept += len(chunk)
        return None  # nothing for later handlers

    def file_complete(self, file_size: int) -> InMemoryUploadedFile:
        self.file.seek(0)
        return InMemoryUploadedFile(
            file=self.file,
            field_name=self.field_name,
            name=self.file_name,
            content_type=self.content_type,
            size=file_size,
            charset=self.charset,
            content_type_extra=self.content_type_extra,
        )
