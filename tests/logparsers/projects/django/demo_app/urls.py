from django.urls import path


def boom(request):
    raise RuntimeError("view failed")


urlpatterns = [path("boom/", boom)]
