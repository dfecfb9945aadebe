// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/large_stack.h"

#include "core/common/error.h"

#include <pthread.h>

#include <cstring>
#include <exception>

namespace dice {

namespace {

struct Job {
    const std::function<void()>* work = nullptr;
    std::exception_ptr error;
};

void* runJob(void* argument) {
    auto* job = static_cast<Job*>(argument);
    try {
        (*job->work)();
    } catch (...) {
        job->error = std::current_exception();
    }
    return nullptr;
}

} // namespace

void runOnLargeStack(const std::function<void()>& work, std::size_t stackBytes) {
    pthread_attr_t attributes;
    if (int e = pthread_attr_init(&attributes); e != 0)
        throw Error(std::string("cannot prepare a thread: ") + std::strerror(e));
    Job job;
    job.work = &work;
    pthread_t thread;
    int e = pthread_attr_setstacksize(&attributes, stackBytes);
    if (e == 0)
        e = pthread_create(&thread, &attributes, runJob, &job);
    pthread_attr_destroy(&attributes);
    if (e != 0)
        throw Error("cannot start a thread with a " + std::to_string(stackBytes >> 20) +
                    " MiB stack: " + std::strerror(e));
    pthread_join(thread, nullptr);
    if (job.error)
        std::rethrow_exception(job.error);
}

} // namespace dice
