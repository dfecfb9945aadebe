// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/eval/eval_options.h"
#include "core/eval/evaluation.h"
#include "core/suite/suite_evaluation.h"
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

// One suite evaluated with a folder of candidates: a progress step as each evaluation finishes,
// then the whole evaluation, or the reason it could not be made. Cancelled, it stops starting
// evaluations and still delivers the evaluation, with the ones not run as failures.
class SuiteEvaluationJob : public Job {
    Q_OBJECT
public:
    explicit SuiteEvaluationJob(QObject* parent = nullptr)
        : Job(parent) {}

Q_SIGNALS:
    void progress(const QString& task, const QString& verdict, int finished, int total);
    void finished(const dice::SuiteEvaluation& evaluation);
    void failed(const QString& message);
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
    // Every task's candidate in a folder, as `dice eval --suite` does; the evaluations are not
    // kept in the run store (they are one table, not runs of the task being worked on).
    SuiteEvaluationJob* evaluateSuite(const TaskSuite& suite,
                                      const SuiteEvaluationOptions& options);
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
