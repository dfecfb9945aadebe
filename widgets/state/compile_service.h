// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"

#include <QObject>
#include <QString>

#include <memory>

namespace dice {

class NvrtcCompiler;

// Compiles off the GUI thread. Every request gets an id; a newer request supersedes older ones,
// whose results are dropped when they arrive.
class CompileService : public QObject {
    Q_OBJECT
public:
    explicit CompileService(QObject* parent = nullptr);
    ~CompileService() override;

    // Returns the id of the request.
    int compile(const QString& source, const QString& fileName, const CompileOptions& options);
    int latestRequest() const { return m_latest; }
    bool busy() const { return m_pending > 0; }

Q_SIGNALS:
    void started(int requestId);
    // Only for the latest request; stale results never reach the GUI.
    void finished(int requestId, const dice::CompileResult& result);

private:
    std::shared_ptr<NvrtcCompiler> m_compiler;
    int m_latest = 0;
    int m_pending = 0;
};

} // namespace dice
