// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"
#include "core/tasks/task.h"
#include "widgets/state/owner_thread.h"

#include <QObject>
#include <QString>

#include <memory>

namespace dice {

class Evaluator;
class RunStore;

// One evaluation: the evaluator's progress, then the result and the id it was kept under in the
// run store (0 when it was not kept). Superseded by a newer one, it delivers nothing.
class EvaluationJob : public Job {
    Q_OBJECT
public:
    explicit EvaluationJob(QObject* parent = nullptr)
        : Job(parent) {}

Q_SIGNALS:
    void progress(const QString& stage, double fraction, const QString& message);
    void finished(const dice::EvaluationResult& result, qint64 runId);
};

// Evaluates candidates off the GUI thread: one thread owns the Evaluator (and through it the
// dice-evald worker process). A newer request supersedes older ones: one waiting never runs,
// and the one in flight runs to its end (the worker cannot be interrupted) but delivers nothing.
// Each result is kept in the run store.
class EvaluationService : public QObject {
    Q_OBJECT
public:
    // workerExecutable: dice-evald; empty for the one beside the program. store: where results
    // are kept; null for nowhere.
    EvaluationService(const QString& workerExecutable, std::shared_ptr<RunStore> store,
                      QObject* parent = nullptr);
    ~EvaluationService() override;

    EvaluationJob* evaluate(const Task& task, const QString& source, const EvalOptions& options);
    bool busy() const { return m_thread->busy(); }

Q_SIGNALS:
    // A delivered result was kept in the store under this id.
    void stored(qint64 runId);

private:
    std::shared_ptr<Evaluator> m_evaluator;
    std::shared_ptr<RunStore> m_store;
    OwnerThread* m_thread;
};

} // namespace dice
