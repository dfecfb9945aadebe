// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "core/cuda/sass_listing.h"
#include "widgets/state/owner_thread.h"

#include <QObject>
#include <QString>

#include <memory>
#include <string>

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

// One disassembly of a compiled cubin into SASS. Superseded by a newer one, it delivers nothing.
class DisassemblyJob : public Job {
    Q_OBJECT
public:
    explicit DisassemblyJob(QObject* parent = nullptr)
        : Job(parent) {}

Q_SIGNALS:
    // tool is empty when no disassembler was found; error is empty when text holds the listing.
    void finished(const QString& tool, const QString& error, const dice::SassText& text);
};

// Compiles off the GUI thread, on the compiler's own thread. A newer request supersedes older
// ones: one waiting never runs, and the result of the one in flight is dropped.
class CompileService : public QObject {
    Q_OBJECT
public:
    explicit CompileService(QObject* parent = nullptr);
    ~CompileService() override;

    // A file named .dice is a candidate: its device part is compiled and its host part checked.
    CompileJob* compile(const QString& source, const QString& fileName,
                        const CompileOptions& options);
    // The same on a second line of requests, which neither supersedes compile()'s nor is
    // superseded by them: for the candidate the editor's is compared with.
    CompileJob* compileBeside(const QString& source, const QString& fileName,
                              const CompileOptions& options);
    // Runs the CUDA toolkit's disassembler on a thread of its own, so a slow one never holds
    // up the next compile; sourceFile and source label the listing with the compiled lines.
    DisassemblyJob* disassemble(const std::string& cubin, const QString& sourceFile,
                                const QString& source);
    bool busy() const { return m_thread->busy() || m_beside->busy() || m_disassembler->busy(); }

private:
    CompileJob* post(OwnerThread* thread, const QString& source, const QString& fileName,
                     const CompileOptions& options);

    std::shared_ptr<NvrtcCompiler> m_compiler;
    OwnerThread* m_thread;
    OwnerThread* m_beside;
    OwnerThread* m_disassembler;
};

} // namespace dice
