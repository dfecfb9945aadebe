// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/workbench_state.h"

#include "core/common/file_util.h"
#include "widgets/state/compile_service.h"
#include "widgets/state/evaluation_service.h"
#include "widgets/state/model_runner.h"

#include <QDir>
#include <QFileInfo>

namespace dice {

namespace {

std::shared_ptr<RunStore> openStore(const QString& path, QString* error) {
    if (path == QLatin1String("-"))
        return nullptr;
    try {
        return std::make_shared<RunStore>(path.isEmpty() ? RunStore::defaultPath()
                                                         : path.toStdString());
    } catch (const std::exception& e) {
        *error = QString::fromStdString(e.what());
        return nullptr;
    }
}

} // namespace

WorkbenchState::WorkbenchState(QObject* parent)
    : WorkbenchState(Options(), parent) {}

WorkbenchState::WorkbenchState(const Options& options, QObject* parent)
    : QObject(parent)
    , m_store(openStore(options.storePath, &m_storeError))
    , m_runner(new ModelRunner(this))
    , m_evaluation(new EvaluationService(options.workerExecutable, m_store, this))
    , m_compile(new CompileService(this)) {
    connect(m_runner, &ModelRunner::loaded, this, [this] {
        const QString folder =
            QFileInfo(QString::fromStdString(m_runner->summary().folder)).canonicalFilePath();
        const QString embedded = QFileInfo(QDir(QString::fromStdString(dataDirectory()))
                                               .filePath(QStringLiteral("models/dice-nano")))
                                     .canonicalFilePath();
        setModel(QString::fromStdString(m_runner->summary().name),
                 !folder.isEmpty() && folder == embedded);
    });
    connect(m_runner, &ModelRunner::unloaded, this, [this] { setModel(QString(), false); });
    connect(m_evaluation, &EvaluationService::stored, this, &WorkbenchState::runAdded);
}

WorkbenchState::~WorkbenchState() = default;

void WorkbenchState::setSuite(TaskSuite suite) {
    m_suite = std::move(suite);
    m_current.reset();
    reloadBaseline();
    Q_EMIT suiteChanged();
    Q_EMIT currentTaskChanged();
}

void WorkbenchState::setCurrentTask(const QString& name) {
    const Task* task = m_suite.find(name.toStdString());
    if (!task) {
        if (!m_current)
            return;
        m_current.reset();
    } else {
        if (m_current && m_current->name == task->name)
            return;
        m_current = *task;
    }
    reloadBaseline();
    Q_EMIT currentTaskChanged();
}

void WorkbenchState::setCandidate(const QString& source) {
    if (source == m_candidate)
        return;
    m_candidate = source;
    Q_EMIT candidateChanged(m_candidate);
}

void WorkbenchState::setModelName(const QString& name) {
    setModel(name, false);
}

void WorkbenchState::setModel(const QString& name, bool embedded) {
    if (name == m_modelName && embedded == m_embeddedLoaded)
        return;
    m_modelName = name;
    m_embeddedLoaded = embedded;
    Q_EMIT modelChanged();
}

void WorkbenchState::reloadBaseline() {
    m_baseline.reset();
    if (m_current && m_store) {
        try {
            m_baseline = m_store->baseline(m_current->name);
        } catch (const std::exception&) {
            // A baseline whose record cannot be read is no baseline.
        }
    }
    Q_EMIT baselineChanged();
}

void WorkbenchState::setSystemInfo(const SystemInfo& info) {
    m_system = info;
    Q_EMIT systemInfoChanged();
}

} // namespace dice
