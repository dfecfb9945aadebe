// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"
#include "core/tasks/task.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

class QThread;

namespace dice {

class Evaluator;
class RunStore;

// Evaluates candidates off the GUI thread: one thread owns the Evaluator (and through it the
// dice-evald worker process); every result carries the id of its request, and only the latest
// request's result is delivered. Each result is kept in the run store.
class EvaluationService : public QObject {
    Q_OBJECT
public:
    // workerExecutable: dice-evald; empty for the one beside the program. storePath: the run
    // store's file; empty for the default, "-" for none.
    explicit EvaluationService(const QString& workerExecutable = QString(),
                               const QString& storePath = QString(), QObject* parent = nullptr);
    ~EvaluationService() override;

    quint64 evaluate(const Task& task, const QString& source, const EvalOptions& options);
    bool busy() const { return m_busy; }
    quint64 latestRequest() const { return m_latest; }
    // Null when the store could not be opened (storeError() says why).
    RunStore* store() const { return m_store.get(); }
    QString storeError() const { return m_storeError; }

Q_SIGNALS:
    void progress(quint64 id, const QString& stage, double fraction, const QString& message);
    // runId: the run's id in the store (0 when it was not kept).
    void finished(quint64 id, const dice::EvaluationResult& result, qint64 runId);
    void stored(qint64 runId);

private:
    QThread* m_thread;
    QObject* m_context;
    std::shared_ptr<Evaluator> m_evaluator;
    std::shared_ptr<RunStore> m_store;
    QString m_storeError;
    std::atomic<quint64> m_latest{0};
    quint64 m_next = 1;
    bool m_busy = false;
};

} // namespace dice

Q_DECLARE_METATYPE(dice::EvaluationResult)
