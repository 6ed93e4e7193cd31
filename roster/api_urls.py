from django.urls import path

from rest_framework.decorators import api_view
from rest_framework.response import Response


@api_view(["POST"])
def placeholder(request):
    return Response({})


urlpatterns = [path("validate/", placeholder, name="roster-api-validate")]
