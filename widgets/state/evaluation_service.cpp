// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/evaluation_service.h"

#include "core/cuda/driver_release.h"
#include "core/worker/evaluator.h"
#include "core/store/run_store.h"

#include <nlohmann/json.hpp>

namespace dice {

EvaluationService::EvaluationService(const QString& workerExecutable,
                                     std::shared_ptr<RunStore> store, QObject* parent)
    : QObject(parent)
    , m_store(std::move(store))
    , m_thread(new OwnerThread(QStringLiteral("evaluation"), this)) {
    qRegisterMetaType<dice::EvaluationResult>();
    EvaluatorOptions options;
    options.workerExecutable = workerExecutable.toStdString();
    m_evaluator = std::make_shared<Evaluator>(options);
}

EvaluationService::~EvaluationService() = default;

EvaluationJob* EvaluationService::evaluate(const Task& task, const QString& source,
                                           const EvalOptions& options) {
    auto* job = new EvaluationJob;
    m_thread->post(job, QStringLiteral("evaluation"), OwnerThread::InFlight::Dropped,
                   [this, job, task, code = source.toStdString(), options, evaluator = m_evaluator,
                    store = m_store](const OwnerThread::Context& context) {
                       EvaluationResult result = evaluator->evaluate(
                           task, code, "candidate.dice", options,
                           [&context, job](const std::string& stage, double fraction,
                                           const std::string& message) {
                               context.deliver([job, stage = QString::fromStdString(stage),
                                                fraction,
                                                message = QString::fromStdString(message)] {
                                   Q_EMIT job->progress(stage, fraction, message);
                               });
                           });
                       qint64 runId = 0;
                       if (store) {
                           try {
                               runId = store->add(RunStore::recordOf(result, code, toJson(options),
                                                                     nvidiaDriverRelease()));
                           } catch (const std::exception&) {
                               runId = 0;
                           }
                       }
                       context.deliver([this, job, result, runId] {
                           Q_EMIT job->finished(result, runId);
                           if (runId > 0)
                               Q_EMIT stored(runId);
                       });
                   });
    return job;
}

} // namespace dice
