// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/system/system_info.h"
#include "core/tasks/task.h"

#include <QObject>
#include <QString>

#include <optional>

namespace dice {

class ModelRunner;

// The state the four work areas share: the task suite and the current task, the loaded model,
// what the machine offers. Lives on the GUI thread; areas observe its signals.
class WorkbenchState : public QObject {
    Q_OBJECT
public:
    explicit WorkbenchState(QObject* parent = nullptr);

    const TaskSuite& suite() const { return m_suite; }
    void setSuite(TaskSuite suite);

    const Task* currentTask() const { return m_current ? &*m_current : nullptr; }
    void setCurrentTask(const QString& name);

    bool modelLoaded() const { return !m_modelName.isEmpty(); }
    QString modelName() const { return m_modelName; }
    void setModelName(const QString& name);

    // The model's owner thread; the model name follows what it has loaded.
    ModelRunner* modelRunner() const { return m_runner; }

    const std::optional<SystemInfo>& systemInfo() const { return m_system; }
    void setSystemInfo(const SystemInfo& info);
    bool gpuAvailable() const { return m_system && !m_system->devices.empty(); }

Q_SIGNALS:
    void suiteChanged();
    void currentTaskChanged();
    void modelChanged();
    void systemInfoChanged();

private:
    TaskSuite m_suite;
    std::optional<Task> m_current;
    QString m_modelName;
    ModelRunner* m_runner;
    std::optional<SystemInfo> m_system;
};

} // namespace dice
