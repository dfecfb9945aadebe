// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/evaluation_service.h"

#include "core/cuda/driver_release.h"
#include "core/eval/evaluator.h"
#include "core/store/run_store.h"

#include <QMetaObject>
#include <QThread>

#include <nlohmann/json.hpp>

namespace dice {

EvaluationService::EvaluationService(const QString& workerExecutable, const QString& storePath,
                                     QObject* parent)
    : QObject(parent)
    , m_thread(new QThread(this))
    , m_context(new QObject) {
    qRegisterMetaType<dice::EvaluationResult>();
    EvaluatorOptions options;
    options.workerExecutable = workerExecutable.toStdString();
    m_evaluator = std::make_shared<Evaluator>(options);
    if (storePath != QLatin1String("-")) {
        try {
            m_store = std::make_shared<RunStore>(storePath.isEmpty() ? RunStore::defaultPath()
                                                                     : storePath.toStdString());
        } catch (const std::exception& e) {
            m_storeError = QString::fromStdString(e.what());
        }
    }
    m_thread->setObjectName(QStringLiteral("evaluation"));
    m_context->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_context, &QObject::deleteLater);
    m_thread->start();
}

EvaluationService::~EvaluationService() {
    m_latest = 0;
    m_thread->quit();
    m_thread->wait();
}

quint64 EvaluationService::evaluate(const Task& task, const QString& source,
                                    const EvalOptions& options) {
    const quint64 id = m_next++;
    m_latest = id;
    m_busy = true;
    std::shared_ptr<Evaluator> evaluator = m_evaluator;
    std::shared_ptr<RunStore> store = m_store;
    QMetaObject::invokeMethod(m_context, [this, id, task, source, options, evaluator, store] {
        if (m_latest.load() != id)
            return;
        const std::string code = source.toStdString();
        EvaluationResult result = evaluator->evaluate(
            task, code, "candidate.dice", options,
            [this, id](const std::string& stage, double fraction, const std::string& message) {
                Q_EMIT progress(id, QString::fromStdString(stage), fraction,
                                QString::fromStdString(message));
            });
        qint64 runId = 0;
        if (store) {
            try {
                runId = store->add(
                    RunStore::recordOf(result, code, toJson(options), nvidiaDriverRelease()));
            } catch (const std::exception&) {
                runId = 0;
            }
        }
        QMetaObject::invokeMethod(this, [this, id, result, runId] {
            if (id != m_latest.load())
                return;
            m_busy = false;
            Q_EMIT finished(id, result, runId);
            if (runId > 0)
                Q_EMIT stored(runId);
        });
    });
    return id;
}

} // namespace dice
