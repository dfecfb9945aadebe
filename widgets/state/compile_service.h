// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "widgets/state/owner_thread.h"

#include <QObject>
#include <QString>

#include <memory>

namespace dice {

class NvrtcCompiler;

// One compile. Superseded by a newer one, it delivers nothing.
class CompileJob : public Job {
    Q_OBJECT
public:
    explicit CompileJob(QObject* parent = nullptr)
        : Job(parent) {}

Q_SIGNALS:
    void finished(const dice::CompileResult& result);
};

// Compiles off the GUI thread, on the compiler's own thread. A newer request supersedes older
// ones: one waiting never runs, and the result of the one in flight is dropped.
class CompileService : public QObject {
    Q_OBJECT
public:
    explicit CompileService(QObject* parent = nullptr);
    ~CompileService() override;

    CompileJob* compile(const QString& source, const QString& fileName,
                        const CompileOptions& options);
    bool busy() const { return m_thread->busy(); }

private:
    std::shared_ptr<NvrtcCompiler> m_compiler;
    OwnerThread* m_thread;
};

} // namespace dice
