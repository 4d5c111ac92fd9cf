// ts_host_entry.hpp: how the CPU backend starts a CUDA thread of a user kernel compiled for the
// host: as a fiber, with its built-ins, on the kernel (TS_KERNEL's ts_kernel) and the problem.
// Relies on the API in front of it (ts::Problem).
extern "C" void ts_host_thread(ts::host::Thread* thread, void (*kernel)(ts::Problem),
                               const ts::Problem* problem) {
  ts::host::current = thread;
  kernel(*problem);
}
