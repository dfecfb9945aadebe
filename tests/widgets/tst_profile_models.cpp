// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/file_util.h"
#include "core/cuda/compile_log_parser.h"
#include "core/store/run_import.h"
#include "core/store/run_store.h"
#include "widgets/profile/diagnostic_model.h"
#include "widgets/profile/evaluation_view.h"
#include "widgets/profile/run_history.h"
#include "widgets/profile/run_model.h"
#include "widgets/profile/trial_model.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <QAbstractItemModelTester>
#include <QColor>
#include <QFont>
#include <QHeaderView>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using nlohmann::json;

namespace {

constexpr const char* kSelfTest = DICE_TEST_FIXTURES "/store/selftest-nvidia-h200.json";

QStringList columnOf(const QAbstractItemModel& model, int column, int role = Qt::DisplayRole) {
    QStringList values;
    for (int row = 0; row < model.rowCount(); ++row)
        values << model.index(row, column).data(role).toString();
    return values;
}

// `read` of every row once the model is sorted by `column` through `role`, as a view sorts it.
QStringList sortedBy(QAbstractItemModel* model, int role, int column, int read,
                     Qt::SortOrder order = Qt::AscendingOrder) {
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(model);
    proxy.setSortRole(role);
    proxy.sort(column, order);
    return columnOf(proxy, read);
}

// The GPU machine's self-test evaluation of one check, as the worker wrote it.
json selfTestEvaluation(const std::string& check) {
    const json doc = json::parse(dice::readTextFile(kSelfTest));
    for (const auto& c : doc["checks"])
        if (c["name"] == check)
            return c["data"]["evaluation"];
    return {};
}

// A run store holding the version-1 fixture's four runs (one of them damaged) and, after them,
// the seventeen runs of the H200 self-test.
void fillStore(const QString& path) {
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    const std::string sql = dice::readTextFile(DICE_TEST_FIXTURES "/store/runs-v1.sql");
    QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    dice::RunStore store(path.toStdString());
    const auto imported =
        dice::importRuns(dice::readTextFile(kSelfTest), "selftest", DICE_SOURCE_DIR "/resources");
    QCOMPARE(imported.runs.size(), std::size_t(17));
    for (const auto& run : imported.runs)
        store.add(run);
}

QList<qint64> idsShown(const QAbstractItemModel& model, int column = 0) {
    QList<qint64> ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids << model.index(row, column).data(dice::RunModel::RunIdRole).toLongLong();
    return ids;
}

QList<qint64> idsOf(const std::vector<dice::RunRecord>& runs) {
    QList<qint64> ids;
    for (const auto& run : runs)
        ids << run.id;
    return ids;
}

} // namespace

class TestProfileModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A real NVRTC log, read by the compile log parser: one row per message in the compiler's
    // order, with what the golden file says of each, and its line and column for the jump.
    void diagnosticsOfARealLog() {
        dice::DiagnosticModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), 4);
        const std::string base = DICE_TEST_FIXTURES "/nvrtc/";
        const json expected =
            json::parse(dice::readTextFile(base + "multiple.expected.json"))["diagnostics"];
        model.setDiagnostics(dice::parseNvrtcLog(dice::readTextFile(base + "multiple.log")));
        QCOMPARE(model.rowCount(), static_cast<int>(expected.size()));
        for (int row = 0; row < model.rowCount(); ++row) {
            const json& e = expected[static_cast<std::size_t>(row)];
            auto cell = [&](int column, int role = Qt::DisplayRole) {
                return model.index(row, column).data(role);
            };
            QCOMPARE(cell(dice::DiagnosticModel::SeverityColumn).toString(),
                     QString::fromStdString(e["severity"].get<std::string>()));
            QCOMPARE(cell(dice::DiagnosticModel::LineColumn).toString(),
                     QString::number(e["line"].get<int>()));
            QCOMPARE(cell(dice::DiagnosticModel::ColumnColumn).toString(),
                     QString::number(e["column"].get<int>()));
            QCOMPARE(cell(dice::DiagnosticModel::MessageColumn).toString(),
                     QString::fromStdString(e["message"].get<std::string>()));
            QCOMPARE(cell(0, dice::DiagnosticModel::LineRole).toInt(), e["line"].get<int>());
            QCOMPARE(cell(0, dice::DiagnosticModel::ColumnRole).toInt(), e["column"].get<int>());
        }
        // The warning's number is in its tooltip; errors and warnings differ in colour.
        QVERIFY(model.index(2, dice::DiagnosticModel::MessageColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("177-D"));
        QVERIFY(model.index(0, 0).data(Qt::ForegroundRole).value<QColor>() !=
                model.index(2, 0).data(Qt::ForegroundRole).value<QColor>());

        // Lines 9, 11 and 5: as text 11 would come first.
        using M = dice::DiagnosticModel;
        QCOMPARE(sortedBy(&model, M::SortRole, M::LineColumn, M::LineColumn),
                 QStringList({"5", "9", "11"}));
        QCOMPARE(sortedBy(&model, Qt::DisplayRole, M::LineColumn, M::LineColumn),
                 QStringList({"11", "5", "9"}));
        // The most serious first, in the compiler's order among equals.
        QCOMPARE(sortedBy(&model, M::SortRole, M::SeverityColumn, M::LineColumn),
                 QStringList({"9", "11", "5"}));

        // Another compile replaces the list; a clean one empties it.
        model.setDiagnostics(dice::parseNvrtcLog(dice::readTextFile(base + "syntax.log")));
        QCOMPARE(columnOf(model, M::LineColumn), QStringList({"4", "3"}));
        model.setDiagnostics({});
        QCOMPARE(model.rowCount(), 0);
        QSignalSpy headers(&model, &QAbstractItemModel::headerDataChanged);
        model.retranslate();
        QCOMPARE(headers.count(), 1);
        QCOMPARE(model.headerData(M::MessageColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Message"));
    }

    // A message without a column (the compiler's summary lines, an invalid candidate) shows an
    // empty column and jumps to the start of its line.
    void diagnosticWithoutAColumn() {
        dice::DiagnosticModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        dice::Diagnostic d;
        d.line = 1;
        d.severity = dice::Severity::Remark;
        d.message = "the file has no #pragma dice host section";
        model.setDiagnostics({d});
        QCOMPARE(model.index(0, dice::DiagnosticModel::SeverityColumn).data().toString(),
                 QStringLiteral("remark"));
        QCOMPARE(model.index(0, dice::DiagnosticModel::ColumnColumn).data().toString(), QString());
        QCOMPARE(model.index(0, 0).data(dice::DiagnosticModel::ColumnRole).toInt(), 0);
        QCOMPARE(model.index(0, 0).data(Qt::ToolTipRole).toString(),
                 QString::fromStdString(d.message));
    }

    // The H200 self-test's out-of-bounds softmax: five trials pass with errors a float's rounding
    // apart, the sixth fails; the errors sort by value at full precision, not by the three digits
    // shown.
    void trialsOfARealEvaluation() {
        const json evaluation = selfTestEvaluation("hack.shape_hardcoded");
        QVERIFY(evaluation.is_object());
        const dice::EvaluationResult result = dice::evaluationFromJson(evaluation);
        dice::TrialModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTrials(result.trials);
        const json& trials = evaluation["trials"];
        QCOMPARE(model.rowCount(), static_cast<int>(trials.size()));
        QCOMPARE(model.columnCount(), 5);
        using M = dice::TrialModel;
        for (int row = 0; row < model.rowCount(); ++row) {
            const json& t = trials[static_cast<std::size_t>(row)];
            QCOMPARE(model.index(row, M::TrialColumn).data().toString(),
                     QString::number(t["trial"].get<int>()));
            QCOMPARE(model.index(row, M::PassedColumn).data().toString(),
                     t["passed"].get<bool>() ? QStringLiteral("yes") : QStringLiteral("no"));
            QCOMPARE(model.index(row, M::AbsErrorColumn).data().toString(),
                     QString::number(t["max_abs_error"].get<double>(), 'g', 3));
            QCOMPARE(model.index(row, M::DetailColumn).data().toString(),
                     QString::fromStdString(t["detail"].get<std::string>()));
            QCOMPARE(model.index(row, M::TrialColumn).data(Qt::ToolTipRole).toString(),
                     QStringLiteral("Seed %1").arg(t["seed"].get<std::uint64_t>()));
        }
        QCOMPARE(model.index(5, M::DetailColumn).data().toString(),
                 QStringLiteral("a kernel wrote outside its tensors"));
        QVERIFY(model.index(0, M::PassedColumn).data(Qt::ForegroundRole).value<QColor>() !=
                model.index(5, M::PassedColumn).data(Qt::ForegroundRole).value<QColor>());

        // Absolute errors 5.82e-11 (four trials), 1.16e-10 (trial 2) and 0 (trial 5).
        QCOMPARE(sortedBy(&model, M::SortRole, M::AbsErrorColumn, M::TrialColumn),
                 QStringList({"5", "0", "1", "3", "4", "2"}));
        QCOMPARE(sortedBy(&model, Qt::DisplayRole, M::AbsErrorColumn, M::TrialColumn),
                 QStringList({"5", "2", "0", "1", "3", "4"}));
        // Relative errors that all read 3.58e-07 still come in their order.
        QCOMPARE(columnOf(model, M::RelErrorColumn).mid(0, 5),
                 QStringList(5, QStringLiteral("3.58e-07")));
        std::vector<std::pair<double, int>> byRel;
        for (const auto& t : trials)
            byRel.emplace_back(t["max_rel_error"].get<double>(), t["trial"].get<int>());
        std::sort(byRel.begin(), byRel.end());
        QStringList expected;
        for (const auto& [error, trial] : byRel)
            expected << QString::number(trial);
        QCOMPARE(sortedBy(&model, M::SortRole, M::RelErrorColumn, M::TrialColumn), expected);
        QCOMPARE(sortedBy(&model, M::SortRole, M::PassedColumn, M::TrialColumn).front(),
                 QStringLiteral("5"));

        // The next evaluation replaces the trials (here fewer), a cleared view has none.
        model.setTrials(dice::evaluationFromJson(selfTestEvaluation("eval.matmul")).trials);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(columnOf(model, M::PassedColumn), QStringList(5, QStringLiteral("yes")));
        model.setTrials(result.trials);
        QCOMPARE(model.rowCount(), 6);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    // The evaluation view's trial table shows the model, sorted as its header says.
    void evaluationViewShowsTheTrials() {
        dice::EvaluationView view;
        QTableView* table = view.trials();
        QCOMPARE(table->model()->rowCount(), 0);
        view.showResult(dice::evaluationFromJson(selfTestEvaluation("hack.shape_hardcoded")));
        QCOMPARE(columnOf(*table->model(), dice::TrialModel::TrialColumn),
                 QStringList({"0", "1", "2", "3", "4", "5"}));
        table->sortByColumn(dice::TrialModel::AbsErrorColumn, Qt::DescendingOrder);
        QCOMPARE(table->model()->index(0, dice::TrialModel::TrialColumn).data().toString(),
                 QStringLiteral("2"));
        table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
        QCOMPARE(columnOf(*table->model(), dice::TrialModel::TrialColumn),
                 QStringList({"0", "1", "2", "3", "4", "5"}));
        view.clear();
        QCOMPARE(table->model()->rowCount(), 0);
    }

    // Runs of a real store: the version-1 fixture (a damaged result among them) and the H200
    // self-test's imported runs, as the store lists them; a pinned baseline; runs added after.
    void runsOfTheStore() {
        QTemporaryDir dir;
        const QString path = dir.filePath("runs.sqlite3");
        fillStore(path);
        dice::RunStore store(path.toStdString());
        dice::RunModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        using M = dice::RunModel;
        QCOMPARE(model.columnCount(), 7);
        const dice::RunQuery oldest{"", dice::RunQuery::Order::Oldest, 0};
        auto runs = store.list(oldest);
        QCOMPARE(runs.size(), std::size_t(21));
        model.setRuns(runs);
        QCOMPARE(model.rowCount(), 21);
        QCOMPARE(idsShown(model, M::DeviceColumn), idsOf(runs));

        // The fixture's first run: the store's own columns.
        QCOMPARE(model.index(0, M::IdColumn).data().toString(), QStringLiteral("1"));
        QCOMPARE(model.index(0, M::WhenColumn).data().toString(),
                 QStringLiteral("2026-11-30T10:00:00Z"));
        QCOMPARE(model.index(0, M::TaskColumn).data().toString(), QStringLiteral("relu"));
        QCOMPARE(model.index(0, M::VerdictColumn).data().toString(), QStringLiteral("correct"));
        QCOMPARE(model.index(0, M::SpeedupColumn).data().toString(), QStringLiteral("1.02×"));
        QCOMPARE(model.index(0, M::MedianColumn).data().toString(), QString());
        QCOMPARE(model.index(0, M::DeviceColumn).data().toString(), QStringLiteral("NVIDIA H200"));
        // Its incorrect run has no speedup; the damaged one shows only what the store kept.
        QCOMPARE(model.index(1, M::SpeedupColumn).data().toString(), QString());
        QCOMPARE(model.index(3, M::VerdictColumn).data().toString(), QString());
        QCOMPARE(model.index(3, M::MedianColumn).data().toString(), QString());
        // The imported matmul: its median, message and driver from the self-test file.
        const json matmul = selfTestEvaluation("eval.matmul");
        const json doc = json::parse(dice::readTextFile(kSelfTest));
        int matmulRow = -1;
        for (int row = 0; row < model.rowCount(); ++row)
            if (model.index(row, M::TaskColumn).data().toString() == QLatin1String("matmul") &&
                model.index(row, M::WhenColumn).data().toString() ==
                    QString::fromStdString(doc["date"].get<std::string>()))
                matmulRow = row;
        QVERIFY(matmulRow >= 0);
        QCOMPARE(model.index(matmulRow, M::MedianColumn).data().toString(),
                 QString::number(matmul["candidate_time"]["median_ms"].get<double>(), 'f', 4));
        QCOMPARE(model.index(matmulRow, M::SpeedupColumn).data().toString(),
                 QStringLiteral("%1×").arg(matmul["speedup"].get<double>(), 0, 'f', 2));
        QCOMPARE(model.index(matmulRow, M::VerdictColumn).data(Qt::ToolTipRole).toString(),
                 QString::fromStdString(matmul["message"].get<std::string>()));
        QCOMPARE(model.index(matmulRow, M::DeviceColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("Driver 580.159.04"));

        // Ids sort as numbers: 1 to 21, not 1, 10, 11, ...
        QStringList byId;
        for (int id = 1; id <= 21; ++id)
            byId << QString::number(id);
        QCOMPARE(sortedBy(&model, M::SortRole, M::IdColumn, M::IdColumn), byId);
        QVERIFY(sortedBy(&model, Qt::DisplayRole, M::IdColumn, M::IdColumn) != byId);
        // Speedups as the store orders the fastest; medians by value, the untimed runs last.
        QStringList fastest;
        for (const auto& run : store.list({"", dice::RunQuery::Order::Fastest, 0}))
            if (run.speedup > 0)
                fastest << QString::number(run.id);
        QCOMPARE(sortedBy(&model, M::SortRole, M::SpeedupColumn, M::IdColumn, Qt::DescendingOrder)
                     .mid(0, fastest.size()),
                 fastest);
        std::vector<std::pair<double, qint64>> timed;
        for (const auto& run : runs) {
            const json& time =
                run.result.is_object() ? run.result.value("candidate_time", json()) : json();
            if (time.is_object())
                timed.emplace_back(time["median_ms"].get<double>(), run.id);
        }
        std::sort(timed.begin(), timed.end());
        QCOMPARE(timed.size(), std::size_t(6));
        QStringList byMedian;
        for (const auto& [median, id] : timed)
            byMedian << QString::number(id);
        const QStringList medianOrder = sortedBy(&model, M::SortRole, M::MedianColumn, M::IdColumn);
        QCOMPARE(medianOrder.mid(0, byMedian.size()), byMedian);

        // Pinning a baseline changes a row: the model is reset and the run is marked.
        store.pinBaseline(3);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.setRuns(store.list(oldest));
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.index(2, M::IdColumn).data().toString(), QStringLiteral("3 (baseline)"));
        QVERIFY(model.index(2, M::IdColumn).data(Qt::FontRole).value<QFont>().bold());
        QCOMPARE(model.index(2, M::IdColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("The pinned baseline of linear_bias_gelu"));
        QVERIFY(!model.index(0, M::IdColumn).data(Qt::FontRole).value<QFont>().bold());
        QCOMPARE(sortedBy(&model, M::SortRole, M::IdColumn, M::IdColumn).mid(0, 4),
                 QStringList({"1", "2", "3 (baseline)", "4"}));

        // The same list again changes nothing; a new run is appended, oldest first, or put on
        // top, newest first, without a reset.
        model.setRuns(store.list(oldest));
        QCOMPARE(reset.count(), 1);
        const auto relu = dice::RunStore::recordOf(
            dice::evaluationFromJson(selfTestEvaluation("eval.relu")), "", json::object(), "");
        const qint64 added = store.add(relu);
        model.setRuns(store.list(oldest));
        QCOMPARE(reset.count(), 1);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.last().at(1).toInt(), 21);
        QCOMPARE(model.rowCount(), 22);
        QCOMPARE(model.index(21, 0).data(M::RunIdRole).toLongLong(), added);
        const dice::RunQuery newest{"", dice::RunQuery::Order::Newest, 0};
        model.setRuns(store.list(newest));
        QCOMPARE(reset.count(), 2);
        const qint64 latest = store.add(relu);
        model.setRuns(store.list(newest));
        QCOMPARE(reset.count(), 2);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(inserted.last().at(1).toInt(), 0);
        QCOMPARE(model.index(0, 0).data(M::RunIdRole).toLongLong(), latest);
        QCOMPARE(idsShown(model), idsOf(store.list(newest)));
        // A filter that shows fewer runs, then none.
        model.setRuns(store.list({"matmul", dice::RunQuery::Order::Newest, 0}));
        QCOMPARE(model.rowCount(), 2);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    // The history's table: the store's order, or a header's; the selection kept across both and
    // across a refresh; the baseline marked once pinned.
    void historyTableSortsAndKeepsTheSelection() {
        QTemporaryDir dir;
        const QString path = dir.filePath("runs.sqlite3");
        fillStore(path);
        dice::RunStore store(path.toStdString());
        dice::RunHistory history;
        history.setStore(&store);
        QTableView* table = history.table();
        QCOMPARE(table->objectName(), QStringLiteral("RunTable"));
        const QList<qint64> newest = idsOf(store.list());
        QCOMPARE(history.shownRuns(), newest);
        history.selectRuns({10});
        table->sortByColumn(dice::RunModel::IdColumn, Qt::AscendingOrder);
        QList<qint64> ascending;
        for (qint64 id = 1; id <= 21; ++id)
            ascending << id;
        QCOMPARE(history.shownRuns(), ascending);
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(table->selectionModel()->selectedRows().front().data().toString(),
                 QStringLiteral("10"));
        QVERIFY(history.pinSelected());
        QCOMPARE(history.shownRuns(), ascending);
        QCOMPARE(table->model()->index(9, dice::RunModel::IdColumn).data().toString(),
                 QStringLiteral("10 (baseline)"));
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(store.baseline(store.get(10)->task)->id, 10);
        table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
        QCOMPARE(history.shownRuns(), newest);
        history.setTaskFilter("matmul");
        QCOMPARE(history.shownRuns().size(), 2);
    }
};

QTEST_MAIN(TestProfileModels)
#include "tst_profile_models.moc"
