// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/evaluation_service.h"

#include "core/cuda/driver_release.h"
#include "core/store/run_store.h"
#include "core/worker/evaluator.h"

#include <nlohmann/json.hpp>

namespace dice {

EvaluationService::EvaluationService(const QString& workerExecutable,
                                     std::shared_ptr<RunStore> store, QObject* parent)
    : QObject(parent)
    , m_store(std::move(store))
    , m_thread(new OwnerThread(QStringLiteral("evaluation"), this)) {
    qRegisterMetaType<dice::EvaluationResult>();
    qRegisterMetaType<dice::SuiteEvaluation>();
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

SuiteEvaluationJob* EvaluationService::evaluateSuite(const TaskSuite& suite,
                                                     const SuiteEvaluationOptions& options) {
    auto* job = new SuiteEvaluationJob;
    m_thread->post(
        job, QStringLiteral("suite"), OwnerThread::InFlight::Stops,
        [job, suite, options, evaluator = m_evaluator](const OwnerThread::Context& context) {
            try {
                SuiteEvaluation evaluation = dice::evaluateSuite(
                    *evaluator, suite, options,
                    [&context, job](const EvaluationResult& result, std::size_t finished,
                                    std::size_t total) {
                        context.deliver([job, task = QString::fromStdString(result.task),
                                         verdict = QString::fromStdString(toString(result.verdict)),
                                         finished = static_cast<int>(finished),
                                         total = static_cast<int>(total)] {
                            Q_EMIT job->progress(task, verdict, finished, total);
                        });
                    },
                    context.cancelFlag());
                context.deliver([job, evaluation = std::move(evaluation)] {
                    Q_EMIT job->finished(evaluation);
                });
            } catch (const std::exception& e) {
                context.deliver(
                    [job, message = QString::fromUtf8(e.what())] { Q_EMIT job->failed(message); });
            }
        });
    return job;
}

} // namespace dice
