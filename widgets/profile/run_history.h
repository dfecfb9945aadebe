// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/store/run_store.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace dice {

class RunModel;

// The run store's history: filter by task, order it (as the store lists it, or by a column's
// header), pin a run as its task's baseline, open a run's candidate in the editor, and compare
// two runs side by side.
class RunHistory : public QWidget {
    Q_OBJECT
public:
    explicit RunHistory(QWidget* parent = nullptr);

    // Not owned; null shows why there is no history.
    void setStore(RunStore* store, const QString& problem = QString());
    void refresh();
    void setTaskFilter(const QString& task);
    QTableView* table() const { return m_table; }
    // Ids of the rows shown, in the order shown.
    QList<qint64> shownRuns() const;
    void selectRuns(const QList<qint64>& ids);
    bool pinSelected();
    // Side by side: an HTML table of the two runs' figures.
    QString compareSelected();

Q_SIGNALS:
    void openRun(const dice::RunRecord& run);
    void baselineChanged(const QString& task);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    QList<qint64> selectedRuns() const;

    RunStore* m_store = nullptr;
    QString m_problem;
    QComboBox* m_task;
    QComboBox* m_order;
    RunModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QTableView* m_table;
    QPushButton* m_pin;
    QPushButton* m_open;
    QPushButton* m_compare;
    QPushButton* m_refresh;
    QTextBrowser* m_comparison;
    QLabel* m_status;
};

} // namespace dice
