import pytest

from lru import LRUCache


def test_put_and_get():
    cache = LRUCache(maxsize=2)
    cache.put("a", 1)
    assert cache.get("a") == 1
    assert cache.get("missing", "default") == "default"


def test_least_recently_used_is_evicted():
    cache = LRUCache(maxsize=2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert list(cache) == ["b", "c"]


def test_get_refreshes_recency():
    cache = LRUCache(maxsize=2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert "a" in cache and "b" not in cache


def test_overwrite_does_not_grow():
    cache = LRUCache(maxsize=2)
    cache.put("a", 1)
    cache.put("a", 2)
    assert len(cache) == 1 and cache.get("a") == 2


def test_pop():
    cache = LRUCache(maxsize=2)
    cache.put("a", 1)
    assert cache.pop("a") == 1
    assert cache.pop("a", None) is None
    with pytest.raises(KeyError):
        cache.pop("a")


def test_maxsize_must_be_positive():
    with pytest.raises(ValueError):
        LRUCache(maxsize=0)


@pytest.fixture
def evicted():
    return []


@pytest.fixture
def hooked(evicted):
    return LRUCache(maxsize=2, on_evict=lambda key, value: evicted.append((key, value)))


def test_on_evict_receives_key_and_value(hooked, evicted):
    hooked.put("a", 1)
    hooked.put("b", 2)
    hooked.put("c", 3)
    assert evicted == [("a", 1)]


def test_on_evict_follows_recency(hooked, evicted):
    hooked.put("a", 1)
    hooked.put("b", 2)
    hooked.get("a")
    hooked.put("c", 3)
    assert evicted == [("b", 2)]


def test_on_evict_not_called_for_overwrite_or_pop(hooked, evicted):
    hooked.put("a", 1)
    hooked.put("a", 2)
    hooked.put("b", 3)
    hooked.pop("b")
    assert evicted == []
