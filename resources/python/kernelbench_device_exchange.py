# SPDX-License-Identifier: GPL-3.0-or-later
"""GPU memory that the worker and the sandboxed answer's process both map (docs/sandbox.md).

The worker allocates it with the driver's virtual memory API and hands the answer's process a
file descriptor of it (cuMemExportToShareableHandle with a POSIX descriptor): no path to open,
no namespace to share, no handle that names a process, so it crosses dice-sandbox like the
pipes do. A bench-sized problem's inputs and outputs then travel between the processes on the
GPU: through the host file, poisoning and copying out the 6 GiB output of KernelBench's level-1
ReLU cost seconds in each of its hundred timed calls.

Either side sees the memory as one flat uint8 tensor and takes typed views of it at the offsets
a request names.
"""

import ctypes
import os

ALLOCATION_PINNED = 1
HANDLE_POSIX_FILE_DESCRIPTOR = 1
LOCATION_DEVICE = 1
ACCESS_READ_WRITE = 3
GRANULARITY_MINIMUM = 0


class ExchangeUnavailable(Exception):
    """The driver could not make, export or map the memory: the host file serves instead."""


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocationFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocationProperties(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                ("location", _Location), ("win32HandleMetaData", ctypes.c_void_p),
                ("allocFlags", _AllocationFlags)]


class _AccessDescription(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


def _driver():
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        raise ExchangeUnavailable("the CUDA driver library cannot be loaded: %s" % e)
    u64 = ctypes.c_ulonglong
    signatures = {
        "cuMemGetAllocationGranularity": [ctypes.POINTER(ctypes.c_size_t),
                                          ctypes.POINTER(_AllocationProperties), ctypes.c_int],
        "cuMemCreate": [ctypes.POINTER(u64), ctypes.c_size_t,
                        ctypes.POINTER(_AllocationProperties), u64],
        "cuMemExportToShareableHandle": [ctypes.c_void_p, u64, ctypes.c_int, u64],
        "cuMemImportFromShareableHandle": [ctypes.POINTER(u64), ctypes.c_void_p, ctypes.c_int],
        "cuMemAddressReserve": [ctypes.POINTER(u64), ctypes.c_size_t, ctypes.c_size_t, u64, u64],
        "cuMemMap": [u64, ctypes.c_size_t, ctypes.c_size_t, u64, u64],
        "cuMemSetAccess": [u64, ctypes.c_size_t, ctypes.POINTER(_AccessDescription),
                           ctypes.c_size_t],
        "cuMemUnmap": [u64, ctypes.c_size_t],
        "cuMemAddressFree": [u64, ctypes.c_size_t],
        "cuMemRelease": [u64],
    }
    for name, arguments in signatures.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            raise ExchangeUnavailable("the CUDA driver offers no %s" % name)
        function.argtypes = arguments
        function.restype = ctypes.c_int
    return lib


def _check(status, what):
    if status != 0:
        raise ExchangeUnavailable("%s failed with CUresult %d" % (what, status))


def _properties(ordinal):
    properties = _AllocationProperties()
    properties.type = ALLOCATION_PINNED
    properties.requestedHandleTypes = HANDLE_POSIX_FILE_DESCRIPTOR
    properties.location.type = LOCATION_DEVICE
    properties.location.id = ordinal
    return properties


class _CudaArray:
    """What torch.as_tensor needs to see device memory it did not allocate."""

    def __init__(self, pointer, nbytes):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                         "data": (pointer, False), "strides": None,
                                         "version": 2}


class DeviceExchange:
    """One mapping of the shared allocation in this process."""

    def __init__(self, lib, ordinal, handle, nbytes):
        self.lib = lib
        self.ordinal = ordinal
        self.handle = handle
        self.size = nbytes
        self.pointer = 0
        self.bytes = None
        try:
            pointer = ctypes.c_ulonglong(0)
            _check(lib.cuMemAddressReserve(ctypes.byref(pointer), nbytes, 0, 0, 0),
                   "cuMemAddressReserve")
            self.pointer = pointer.value
            _check(lib.cuMemMap(self.pointer, nbytes, 0, handle, 0), "cuMemMap")
            access = _AccessDescription()
            access.location.type = LOCATION_DEVICE
            access.location.id = ordinal
            access.flags = ACCESS_READ_WRITE
            _check(lib.cuMemSetAccess(self.pointer, nbytes, ctypes.byref(access), 1),
                   "cuMemSetAccess")
            import torch
            self.bytes = torch.as_tensor(_CudaArray(self.pointer, nbytes),
                                         device=torch.device("cuda", ordinal))
        except ExchangeUnavailable:
            self.close(synchronize=False)
            raise
        except Exception as e:  # noqa: BLE001 - PyTorch's view of the mapping failed
            self.close(synchronize=False)
            raise ExchangeUnavailable("the mapped memory is no tensor: %s" % e)

    @staticmethod
    def create(ordinal, nbytes):
        """A new allocation of at least nbytes on the device, mapped here, and the descriptor
        that lets another process map it (the caller closes it once passed on)."""
        _current_context(ordinal)
        lib = _driver()
        properties = _properties(ordinal)
        granularity = ctypes.c_size_t(0)
        _check(lib.cuMemGetAllocationGranularity(ctypes.byref(granularity),
                                                 ctypes.byref(properties), GRANULARITY_MINIMUM),
               "cuMemGetAllocationGranularity")
        step = max(1, granularity.value)
        size = max(step, (int(nbytes) + step - 1) // step * step)
        handle = ctypes.c_ulonglong(0)
        _check(lib.cuMemCreate(ctypes.byref(handle), size, ctypes.byref(properties), 0),
               "cuMemCreate of %d bytes" % size)
        descriptor = ctypes.c_int(-1)
        try:
            _check(lib.cuMemExportToShareableHandle(ctypes.byref(descriptor), handle.value,
                                                    HANDLE_POSIX_FILE_DESCRIPTOR, 0),
                   "cuMemExportToShareableHandle")
            exchange = DeviceExchange(lib, ordinal, handle.value, size)
        except BaseException:
            lib.cuMemRelease(handle.value)
            if descriptor.value >= 0:
                os.close(descriptor.value)
            raise
        return exchange, descriptor.value

    @staticmethod
    def attach(ordinal, descriptor, nbytes):
        """The allocation another process exported as `descriptor`, mapped here."""
        _current_context(ordinal)
        lib = _driver()
        handle = ctypes.c_ulonglong(0)
        _check(lib.cuMemImportFromShareableHandle(ctypes.byref(handle),
                                                  ctypes.c_void_p(descriptor),
                                                  HANDLE_POSIX_FILE_DESCRIPTOR),
               "cuMemImportFromShareableHandle")
        try:
            return DeviceExchange(lib, ordinal, handle.value, int(nbytes))
        except BaseException:
            lib.cuMemRelease(handle.value)
            raise

    def view(self, offset, nbytes, dtype, shape):
        """The bytes [offset, offset + nbytes) as a tensor of dtype and shape."""
        import torch
        offset, nbytes = int(offset), int(nbytes)
        if offset < 0 or nbytes < 0 or offset + nbytes > self.size:
            raise ValueError("a region of %d bytes at %d lies outside the %d-byte exchange" %
                             (nbytes, offset, self.size))
        if nbytes == 0:
            return torch.empty(shape, dtype=dtype, device=self.bytes.device)
        raw = self.bytes[offset:offset + nbytes]
        return raw.view(dtype).view(shape) if shape else raw.view(dtype)[0]

    def close(self, synchronize=True):
        """Unmaps and releases; every view must be gone, and the device idle, first."""
        if synchronize and self.bytes is not None and self.bytes.is_cuda:
            import torch
            torch.cuda.synchronize(self.bytes.device)
        self.bytes = None
        if self.pointer:
            self.lib.cuMemUnmap(self.pointer, self.size)
            self.lib.cuMemAddressFree(self.pointer, self.size)
            self.pointer = 0
        if self.handle:
            self.lib.cuMemRelease(self.handle)
            self.handle = 0


def _current_context(ordinal):
    """The driver's calls act on the current context: the one PyTorch made for the device."""
    import torch
    try:
        torch.cuda.set_device(ordinal)
        torch.cuda.init()
        torch.empty(1, device=torch.device("cuda", ordinal))
    except Exception as e:  # noqa: BLE001
        raise ExchangeUnavailable("no CUDA context on device %d: %s" % (ordinal, e))
