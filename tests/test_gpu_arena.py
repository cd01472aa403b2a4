"""The reservation bookkeeping of runtime/gpu_arena.py, driven by a fake driver.

What a real card adds (that the driver returns real addresses, that Numba's arrays
really live inside the region, what nvidia-smi shows) is not checked here.
"""
import pytest

from tfteach.runtime.gpu_arena import Arena


class FakeDriver:
    def __init__(self):
        self.next = 0x10000
        self.live = {}                 # base -> size
        self.calls = []

    def alloc(self, nbytes):
        base, self.next = self.next, self.next + nbytes + 0x10000
        self.live[base] = nbytes
        self.calls.append(("alloc", nbytes))
        return base

    def free(self, base):
        self.calls.append(("free", self.live.pop(base)))


def test_arrays_are_carved_from_one_reservation():
    driver = FakeDriver()
    arena = Arena(driver.alloc, driver.free)
    base = arena.reserve(4096)
    a = arena.allocate(10)                    # rounded to 256, as BFC
    b = arena.allocate(300)                   # 512
    c = arena.allocate(256)
    assert (a, b, c) == (base, base + 256, base + 768)
    assert arena.bytes_in_use == 1024 and arena.bytes_reserved == 4096
    assert driver.calls == [("alloc", 4096)]  # one driver call for all three
    assert arena.allocate(4096) is None       # does not fit: the caller decides


def test_freed_pieces_merge_and_are_reused():
    driver = FakeDriver()
    arena = Arena(driver.alloc, driver.free)
    base = arena.reserve(1024)
    pieces = [arena.allocate(256) for _ in range(4)]
    assert arena.allocate(1) is None
    arena.free(pieces[1])
    arena.free(pieces[2])                     # merged with pieces[1]'s space
    assert arena.allocate(512) == base + 256
    arena.free(base + 256)
    arena.free(pieces[0])
    arena.free(pieces[3])
    assert arena.regions[0].free == [(base, 1024)]      # one free block again
    with pytest.raises(KeyError):
        arena.free(base + 1)


def test_release_gives_back_only_unused_regions():
    driver = FakeDriver()
    arena = Arena(driver.alloc, driver.free)
    arena.reserve_up_to(2048)
    arena.reserve_up_to(2048)                 # already there: no second call
    assert driver.calls == [("alloc", 2048)]
    held = arena.allocate(100)
    arena.reserve(512)                        # grown (allow_growth): a second region
    assert arena.bytes_reserved == 2560
    assert arena.release_unused() == 512      # the empty one goes back
    assert driver.live == {arena.regions[0].base: 2048}
    arena.free(held)
    assert arena.release_unused() == 2048
    assert driver.live == {} and arena.bytes_reserved == 0


def test_the_reservation_is_taken_in_chunks_so_a_cell_can_give_most_of_it_back():
    driver = FakeDriver()
    arena = Arena(driver.alloc, driver.free, chunk=1024)
    arena.reserve_up_to(3000)                 # TF's greedy default: all of it, in chunks
    assert [c for c in driver.calls] == [("alloc", 1024), ("alloc", 1024), ("alloc", 1024)]
    assert arena.bytes_reserved == 3072       # the last chunk rounded to 256 bytes
    variable = arena.allocate(100)            # a session's variable: in the first chunk
    assert variable == arena.regions[0].base
    assert arena.release_unused() == 2048     # a cell's release: only that chunk stays
    assert list(driver.live.values()) == [1024] and arena.bytes_reserved == 1024
    arena.reserve_up_to(3000)                 # the next run takes the rest again
    assert arena.bytes_reserved == 3072 and len(driver.live) == 3


def test_an_array_bigger_than_a_chunk_gets_a_region_of_its_own():
    driver = FakeDriver()
    arena = Arena(driver.alloc, driver.free, chunk=1024)
    arena.reserve_up_to(2048)
    assert arena.allocate(1500) is None       # no chunk is big enough: the caller grows
    base = arena.reserve(1500)
    assert arena.allocate(1500) == base and arena.bytes_reserved == 2048 + 1536
    arena.free(base)
    assert arena.release_unused() == 2048 + 1536 and driver.live == {}


def test_threads_allocating_at_once_never_share_a_piece(monkeypatch):
    """Session threads allocate on one card at once (Session.run is thread-safe): each
    piece is handed to one holder at a time, and everything comes back. The free list
    is searched here with a pause between finding a piece and taking it, where a thread
    switch may fall: without the arena's lock two threads take the same piece."""
    import threading
    import time
    from tfteach.runtime import gpu_arena

    def pausing_take(region, nbytes):
        for k, (address, size) in enumerate(region.free):
            if size >= nbytes:
                time.sleep(0.0002)                  # another thread runs here
                if size == nbytes:
                    del region.free[k]
                else:
                    region.free[k] = (address + nbytes, size - nbytes)
                region.used[address] = nbytes
                return address
        return None
    monkeypatch.setattr(gpu_arena._Region, "take", pausing_take)
    driver = FakeDriver()
    arena = Arena(driver.alloc, driver.free)
    arena.reserve(64 * 1024)
    holders, clashes, failures = {}, [], []
    lock = threading.Lock()

    def work(k):
        mine = []                      # each thread holds a few pieces at a time
        try:
            for i in range(40):
                address = arena.allocate(256 * (1 + (i + k) % 4))
                if address is not None:
                    with lock:
                        if address in holders:
                            clashes.append(address)
                        holders[address] = k
                    mine.append(address)
                if len(mine) > 3 or (address is None and mine):
                    address = mine.pop(0)
                    with lock:
                        holders.pop(address, None)
                    arena.free(address)
            for address in mine:
                with lock:
                    holders.pop(address, None)
                arena.free(address)
        except Exception as e:  # noqa: BLE001 - a corrupted free list: reported below
            failures.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures and not clashes
    assert arena.bytes_in_use == 0
    assert arena.regions[0].free == [(arena.regions[0].base, 64 * 1024)]
