// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/store/run_store.h"
#include "core/system/system_info.h"
#include "core/tasks/task.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace dice {

class CompileService;
class EvaluationService;
class ModelRunner;

// The state the work areas share: the task suite and the current task, the candidate being
// worked on, the loaded model, the run store with the current task's pinned baseline, what the
// machine offers, and the background owners (the model's thread, the evaluator's, the
// compiler's). Lives on the GUI thread; areas observe its signals.
class WorkbenchState : public QObject {
    Q_OBJECT
public:
    struct Options {
        // dice-evald; empty for the one beside the program.
        QString workerExecutable;
        // The run store's file; empty for the default, "-" for none.
        QString storePath;
    };

    explicit WorkbenchState(QObject* parent = nullptr);
    explicit WorkbenchState(const Options& options, QObject* parent = nullptr);
    ~WorkbenchState() override;

    const TaskSuite& suite() const { return m_suite; }
    void setSuite(TaskSuite suite);

    const Task* currentTask() const { return m_current ? &*m_current : nullptr; }
    void setCurrentTask(const QString& name);

    // The kernel being worked on: what Generate or Infill hands on, a run opened from the
    // store, what Profile's editor holds.
    QString candidate() const { return m_candidate; }
    void setCandidate(const QString& source);

    bool modelLoaded() const { return !m_modelName.isEmpty(); }
    QString modelName() const { return m_modelName; }
    void setModelName(const QString& name);
    // The loaded model is the one shipped with the workbench (DICE-nano, docs/dice-nano.md),
    // whose training the areas describe when they ask it something it was not trained on.
    bool embeddedModelLoaded() const { return m_embeddedLoaded; }

    // Null when the store could not be opened (runStoreError() says why) or none was wanted.
    RunStore* runStore() const { return m_store.get(); }
    QString runStoreError() const { return m_storeError; }
    // The current task's pinned run, if it has one that can be read.
    const std::optional<RunRecord>& baseline() const { return m_baseline; }
    // Reads the current task's baseline again, after a run was pinned.
    void reloadBaseline();

    // The model's owner thread; the model name follows what it has loaded.
    ModelRunner* modelRunner() const { return m_runner; }
    EvaluationService* evaluationService() const { return m_evaluation; }
    CompileService* compileService() const { return m_compile; }

    const std::optional<SystemInfo>& systemInfo() const { return m_system; }
    void setSystemInfo(const SystemInfo& info);
    bool gpuAvailable() const { return m_system && !m_system->devices.empty(); }

Q_SIGNALS:
    void suiteChanged();
    void currentTaskChanged();
    void candidateChanged(const QString& source);
    void modelChanged();
    // An evaluation was kept in the run store under this id.
    void runAdded(qint64 runId);
    void baselineChanged();
    void systemInfoChanged();

private:
    void setModel(const QString& name, bool embedded);

    TaskSuite m_suite;
    std::optional<Task> m_current;
    QString m_candidate;
    QString m_modelName;
    bool m_embeddedLoaded = false;
    QString m_storeError;
    std::shared_ptr<RunStore> m_store;
    std::optional<RunRecord> m_baseline;
    std::optional<SystemInfo> m_system;
    ModelRunner* m_runner;
    EvaluationService* m_evaluation;
    CompileService* m_compile;
};

} // namespace dice
