import pytest

from routes import NotFound, Router, normalize


def index():
    return "index"


def list_users():
    return "users"


def show_user(user_id):
    return f"user {user_id}"


@pytest.fixture
def router():
    r = Router()
    r.add("/", index)
    r.add("/users", list_users)
    r.add("/users/<user_id>", show_user)
    return r


def test_normalize_adds_leading_slash_and_collapses_repeats():
    assert normalize("users") == "/users"
    assert normalize("//users///42") == "/users/42"
    assert normalize("//") == "/"


def test_root_route(router):
    assert router.match("/") == (index, {})


def test_static_route(router):
    assert router.match("/users") == (list_users, {})


def test_path_parameter(router):
    assert router.match("/users/42") == (show_user, {"user_id": "42"})


def test_query_string_is_ignored(router):
    assert router.match("/users?page=2") == (list_users, {})


def test_unknown_path_raises_not_found(router):
    with pytest.raises(NotFound):
        router.match("/teams")


def test_url_for_fills_parameters(router):
    assert router.url_for("show_user", user_id=7) == "/users/7"


def test_url_for_root(router):
    assert router.url_for("index") == "/"
