"""Pagination for every API list."""

from rest_framework import exceptions, pagination
from rest_framework.request import Request

from dbd_site.errors import INPUT_CODES
from dbd_site.inputs import whole_number


class StrictLimitOffsetPagination(pagination.LimitOffsetPagination):
    """`limit` and `offset` must be whole numbers; DRF's default quietly ignores junk."""

    max_limit = 200
    # A `limit` or `offset` refused (the schema lists it on every list, dbd_site.schema).
    error_codes = (INPUT_CODES.only("invalid"),)

    def _whole(self, request: Request, name: str) -> int | None:
        raw = request.query_params.getlist(name)
        number = whole_number(raw[0]) if len(raw) == 1 else None
        if raw and number is None:
            raise exceptions.ValidationError(
                {name: [f"'{name}' must be a single whole number, 0 or more (digits 0-9)."]}
            )
        return number

    def paginate_queryset(self, queryset, request, view=None):
        limit = self._whole(request, self.limit_query_param)
        self._whole(request, self.offset_query_param)
        if limit is not None and limit > self.max_limit:
            raise exceptions.ValidationError(
                {self.limit_query_param: [f"At most {self.max_limit} per page."]}
            )
        return super().paginate_queryset(queryset, request, view)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 0
            if parameter["name"] == self.limit_query_param:
                parameter["schema"]["maximum"] = self.max_limit
        return parameters
