"""A stand-in for JAX: local_devices() and Device.memory_stats(), state set by the tests."""


class Device:
    def __init__(self, platform, id=0, stats=None, has_stats=True):
        self.platform, self.id, self._stats = platform, id, stats
        if not has_stats:  # a device without memory_stats (AttributeError when asked)
            self.memory_stats = None
            del self.memory_stats

    def memory_stats(self):
        return self._stats


DEVICES = []


def local_devices():
    return list(DEVICES)
